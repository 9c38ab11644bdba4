package dev.stallwatch.sim;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The identity of a pod template as the DaemonSet controller sees it: the revision hash (upstream
 * {@code ComputeHash}: FNV-32a of the template and the collision count, encoded with the safe
 * alphabet), and the revision data ({@code {"spec":{"template":{…,"$patch":"replace"}}}}) whose
 * equality is upstream's {@code Match}.
 */
final class TemplateHash {

  private static final ObjectMapper SORTED =
      Serialization.jsonMapper()
          .copy()
          .configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true);

  /** Upstream {@code rand.SafeEncodeString}'s alphabet: no vowels, no look-alikes. */
  private static final String SAFE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

  private TemplateHash() {}

  /** A stable serialization of the template: equal templates give equal strings. */
  static String canonicalJson(PodTemplateSpec template) {
    return canonical(SORTED.convertValue(template, Object.class));
  }

  private static String canonical(Object tree) {
    try {
      return SORTED.writeValueAsString(tree);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot serialize a pod template: " + e.getMessage(), e);
    }
  }

  /**
   * The revision hash of {@code template} under {@code collisionCount} (null when never bumped).
   */
  static String hash(PodTemplateSpec template, Integer collisionCount) {
    int h = 0x811c9dc5;
    for (byte b : canonicalJson(template).getBytes(StandardCharsets.UTF_8)) {
      h = (h ^ (b & 0xff)) * 0x01000193;
    }
    if (collisionCount != null) {
      for (int i = 0; i < 4; i++) {
        h = (h ^ ((collisionCount >>> (8 * i)) & 0xff)) * 0x01000193;
      }
    }
    String digits = Long.toString(Integer.toUnsignedLong(h));
    StringBuilder out = new StringBuilder(digits.length());
    for (char c : digits.toCharArray()) {
      out.append(SAFE_ALPHABET.charAt(c % SAFE_ALPHABET.length()));
    }
    return out.toString();
  }

  /** What a ControllerRevision of this template stores in {@code .data}. */
  static Map<String, Object> revisionData(PodTemplateSpec template) {
    @SuppressWarnings("unchecked")
    Map<String, Object> tpl = SORTED.convertValue(template, LinkedHashMap.class);
    tpl.put("$patch", "replace");
    return Map.of("spec", Map.of("template", tpl));
  }

  /** Upstream {@code Match}: the revision stores exactly this template. */
  static boolean matches(PodTemplateSpec template, ControllerRevision revision) {
    if (revision.getData() == null) {
      return false;
    }
    return Objects.equals(
        canonical(SORTED.convertValue(revisionData(template), Object.class)),
        canonical(SORTED.convertValue(revision.getData(), Object.class)));
  }

  /** The template a revision stores, or null when its data is not of that shape. */
  static PodTemplateSpec templateOf(ControllerRevision revision) {
    if (revision.getData() == null) {
      return null;
    }
    // The client hands .data back as whatever Jackson made of it; normalise to plain maps.
    Object data = SORTED.convertValue(revision.getData(), Object.class);
    if (!(data instanceof Map<?, ?> d)
        || !(d.get("spec") instanceof Map<?, ?> spec)
        || !(spec.get("template") instanceof Map<?, ?> tpl)) {
      return null;
    }
    Map<Object, Object> copy = new LinkedHashMap<>(tpl);
    copy.remove("$patch");
    return SORTED.convertValue(copy, PodTemplateSpec.class);
  }
}
