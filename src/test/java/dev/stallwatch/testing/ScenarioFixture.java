package dev.stallwatch.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * One scenario fixture of {@code src/test/resources/scenarios} (written by {@code
 * src/test/fixture-generator/scenarios.py}): the cluster's objects as {@code kubectl get -o json}
 * gives them, the time they are judged at, the stall-after they are judged with, and what {@code
 * diagnose} is expected to say. Every test that reads these files reads them through here.
 *
 * @param file the file's name, e.g. {@code seed-image-pull.yaml}
 * @param objects the {@code List} of objects, as a dump
 * @param now when the objects are judged (RFC 3339)
 * @param stallAfter the stall-after they are judged with (e.g. {@code 5m})
 * @param expect what diagnose says of them
 */
public record ScenarioFixture(
    String file, JsonNode objects, String now, String stallAfter, JsonNode expect) {
  /** Where the fixtures are, from the project's root (the tests' working directory). */
  public static final Path DIR = Path.of("src/test/resources/scenarios");

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final KubernetesSerialization KUBE = new KubernetesSerialization();

  /** Every fixture's file name, sorted. */
  public static List<String> files() {
    try (Stream<Path> files = Files.list(DIR)) {
      return files
          .map(p -> p.getFileName().toString())
          .filter(n -> n.endsWith(".yaml"))
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException("listing " + DIR, e);
    }
  }

  /** Every fixture, in the order of {@link #files()}. */
  public static List<ScenarioFixture> all() {
    return files().stream().map(ScenarioFixture::load).toList();
  }

  /** The fixture {@code name}, with or without its {@code .yaml}. */
  public static ScenarioFixture load(String name) {
    String file = name.endsWith(".yaml") ? name : name + ".yaml";
    JsonNode root;
    try {
      root = YAML.readTree(DIR.resolve(file).toFile());
    } catch (IOException e) {
      throw new UncheckedIOException("reading the scenario fixture " + DIR.resolve(file), e);
    }
    if (root == null || !root.has("objects")) {
      throw new IllegalArgumentException(
          "the scenario fixture " + DIR.resolve(file) + " has no objects");
    }
    return new ScenarioFixture(
        file,
        root.get("objects"),
        root.path("now").asText(),
        root.path("stallAfter").asText(),
        root.path("expect"));
  }

  /** The objects of the dump's {@code items}, as JSON. */
  public List<JsonNode> items() {
    List<JsonNode> items = new ArrayList<>();
    objects.path("items").forEach(items::add);
    return items;
  }

  /** The dump's items as fabric8 objects (each of the type its kind names). */
  public List<HasMetadata> kubeObjects() {
    return items().stream().map(i -> (HasMetadata) KUBE.unmarshal(i.toString())).toList();
  }
}
