package dev.stallwatch.operator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.stallwatch.cli.ExitCodes;
import dev.stallwatch.crd.RolloutStall;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the RolloutStall CRD the API server serves knows every field this operator writes. Helm
 * installs a chart's CRDs once and never upgrades them, so after {@code helm upgrade} an older CRD
 * is still in place: the API server would drop each field it does not know from every status write,
 * and the operator, finding the field missing, would write it again on every reconcile. Instead the
 * operator stops at start-up with one line naming the fields and what to apply.
 *
 * <p>The served schema is read from the API server's OpenAPI v3 document of the group version
 * ({@code /openapi/v3/apis/stallwatch.dev/v1alpha1}), which every authenticated user may read (the
 * {@code system:discovery} role): no grant beyond the chart's. It is compared with the CRD packaged
 * in this jar; fields the served CRD has and this operator lacks (a newer CRD, e.g. after a
 * rollback of the operator) are fine.
 */
public final class CrdSchemaCheck {
  private static final Logger log = LoggerFactory.getLogger(CrdSchemaCheck.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int NAMED = 5;

  private CrdSchemaCheck() {}

  /**
   * The property paths of an OpenAPI v3 object schema, below its top level's {@code metadata}:
   * {@code status.nodes[].suspect}; an object's own path is listed too.
   */
  static List<String> fields(JsonNode schema) {
    TreeSet<String> out = new TreeSet<>();
    walk(schema, "", out);
    return List.copyOf(out);
  }

  private static void walk(JsonNode schema, String path, TreeSet<String> out) {
    JsonNode properties = schema.path("properties");
    for (Iterator<Map.Entry<String, JsonNode>> it = properties.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> p = it.next();
      if (path.isEmpty() && List.of("metadata", "apiVersion", "kind").contains(p.getKey())) {
        continue;
      }
      String child = path.isEmpty() ? p.getKey() : path + "." + p.getKey();
      out.add(child);
      walk(p.getValue(), child, out);
    }
    if (schema.has("items")) {
      walk(schema.get("items"), path + "[]", out);
    }
  }

  /** The fields of {@code wanted} that {@code served} lacks, in order. */
  static List<String> missing(JsonNode wanted, JsonNode served) {
    List<String> have = fields(served);
    return fields(wanted).stream().filter(f -> !have.contains(f)).toList();
  }

  /** The schema of {@code version} in a CRD document (YAML or JSON). */
  static JsonNode crdSchema(InputStream crd, String version) {
    try {
      JsonNode doc = new ObjectMapper(new YAMLFactory()).readTree(crd);
      for (JsonNode v : doc.path("spec").path("versions")) {
        if (version.equals(v.path("name").asText())) {
          return v.path("schema").path("openAPIV3Schema");
        }
      }
      throw new IllegalStateException("the packaged CRD has no version " + version);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The schema of {@code kind} in an OpenAPI v3 document of one group version, found by its {@code
   * x-kubernetes-group-version-kind}; empty when the document does not describe it.
   */
  static Optional<JsonNode> servedSchema(String openApi, String group, String kind) {
    try {
      JsonNode schemas = JSON.readTree(openApi).path("components").path("schemas");
      for (JsonNode schema : schemas) {
        for (JsonNode gvk : schema.path("x-kubernetes-group-version-kind")) {
          if (group.equals(gvk.path("group").asText()) && kind.equals(gvk.path("kind").asText())) {
            return Optional.of(schema);
          }
        }
      }
      return Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /**
   * The start-up line for an older CRD: which fields it lacks and what to apply; empty when nothing
   * is missing.
   */
  static Optional<String> verdict(List<String> missing) {
    if (missing.isEmpty()) {
      return Optional.empty();
    }
    String named = String.join(", ", missing.subList(0, Math.min(NAMED, missing.size())));
    String more = missing.size() > NAMED ? " and " + (missing.size() - NAMED) + " more" : "";
    return Optional.of(
        "the RolloutStall CRD in the cluster ("
            + StartupCheck.CRD
            + ") is older than this operator: its schema lacks "
            + named
            + more
            + ", which the API server would drop from every status write — apply this version's"
            + " CRD first (helm upgrade installs CRDs but never upgrades them): `kubectl apply"
            + " --server-side --force-conflicts -f crd/rolloutstalls.stallwatch.dev-v1.yml` (also inside"
            + " the jar),"
            + " or `helm show crds <chart> | kubectl apply --server-side --force-conflicts -f -`");
  }

  /**
   * Throws {@link ExitCodes.AccessException} with {@link #verdict}'s line when the served CRD lacks
   * a field of the packaged one. A server that publishes no OpenAPI document for the group (the
   * embedded mock) is not judged.
   */
  static void run(KubernetesClient client) {
    String group = HasMetadata.getGroup(RolloutStall.class);
    String version = HasMetadata.getVersion(RolloutStall.class);
    JsonNode wanted;
    try (InputStream crd =
        CrdSchemaCheck.class.getClassLoader().getResourceAsStream(RolloutStall.CRD_RESOURCE)) {
      if (crd == null) {
        throw new IllegalStateException(RolloutStall.CRD_RESOURCE + " is missing from the jar");
      }
      wanted = crdSchema(crd, version);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    String document;
    try {
      document =
          client.raw(
              client.getMasterUrl().toString().replaceAll("/$", "")
                  + "/openapi/v3/apis/"
                  + group
                  + "/"
                  + version);
    } catch (KubernetesClientException e) {
      log.debug("no OpenAPI document for {}/{}: {}", group, version, e.getMessage());
      return;
    }
    Optional<JsonNode> served =
        document == null
            ? Optional.empty()
            : servedSchema(document, group, HasMetadata.getKind(RolloutStall.class));
    if (served.isEmpty()) {
      log.debug("the API server describes no {} in OpenAPI v3: not checking its schema", group);
      return;
    }
    Optional<String> line = verdict(missing(wanted, served.get()));
    if (line.isPresent()) {
      throw new ExitCodes.AccessException(line.get(), null);
    }
  }
}
