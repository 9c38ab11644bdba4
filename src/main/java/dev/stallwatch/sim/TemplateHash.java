package dev.stallwatch.sim;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.charset.StandardCharsets;

/**
 * The revision hash of a pod template as the DaemonSet controller computes it (upstream {@code
 * ComputeHash}: FNV-32a of the template and the collision count, encoded with the safe alphabet).
 * What a revision stores and whether it matches a template (upstream {@code Match}) is {@code
 * kube.PodTemplates}' business, shared with the analyzer's adapters and {@code rollback}.
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
}
