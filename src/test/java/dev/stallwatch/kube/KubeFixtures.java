package dev.stallwatch.kube;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.stallwatch.kube.dump.Dump;
import dev.stallwatch.kube.dump.DumpReader;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Path;

/** The kubectl-shaped dumps under {@code src/test/resources/kube/dumps} and objects from them. */
public final class KubeFixtures {
  private KubeFixtures() {}

  public static Path path(String name) {
    try {
      return Path.of(KubeFixtures.class.getResource("/kube/dumps/" + name).toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A fixture dump read as {@code diagnose --file} reads it (no stdin). */
  public static Dump dump(String name) {
    return dump(path(name));
  }

  /** Any dump file read as {@code diagnose --file} reads it (no stdin). */
  public static Dump dump(Path file) {
    return new DumpReader(java.io.InputStream.nullInputStream())
        .read(java.util.List.of(file.toString()));
  }

  /** The item of a dump's List with this kind and name, as JSON (to edit in a test). */
  public static ObjectNode json(String dump, String kind, String name) {
    try {
      JsonNode list = KubeJson.MAPPER.readTree(path(dump).toFile());
      for (JsonNode item : list.get("items")) {
        if (kind.equals(item.path("kind").asText())
            && name.equals(item.path("metadata").path("name").asText())) {
          return (ObjectNode) item.deepCopy();
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    throw new IllegalArgumentException(kind + " " + name + " not in " + dump);
  }

  static <T extends HasMetadata> T object(JsonNode json, Class<T> type) {
    try {
      return KubeJson.MAPPER.treeToValue(json, type);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static <T extends HasMetadata> T object(String dump, String kind, String name, Class<T> type) {
    return object(json(dump, kind, name), type);
  }
}
