package dev.stallwatch.realcluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The operator image unpacked into a root filesystem, as a container runtime would lay it out: the
 * layers of Jib's tarball ({@code target/jib-image.tar}, Docker format) extracted in order, and the
 * image config's entrypoint, command, environment, user and working directory.
 */
record ImagePod(
    Path rootfs,
    List<String> entrypoint,
    List<String> cmd,
    List<String> env,
    String user,
    String workingDir) {

  static final Path TARBALL = RealCluster.PROJECT.resolve("target/jib-image.tar");

  /** Unpacks {@code tarball} into {@code dir/rootfs} (emptied first). */
  static ImagePod unpack(Path tarball, Path dir) {
    try {
      MonitoringStack.emptied(dir);
      Path image = Files.createDirectories(dir.resolve("image"));
      Path rootfs = Files.createDirectories(dir.resolve("rootfs"));
      tar("-xf", tarball.toString(), "-C", image.toString());
      JsonNode manifest =
          new ObjectMapper().readTree(image.resolve("manifest.json").toFile()).get(0);
      for (JsonNode layer : manifest.path("Layers")) {
        tar(
            "-xzf",
            image.resolve(layer.asText()).toString(),
            "-C",
            rootfs.toString(),
            "--no-same-owner",
            "--warning=no-unknown-keyword");
      }
      JsonNode config =
          new ObjectMapper()
              .readTree(image.resolve(manifest.path("Config").asText()).toFile())
              .path("config");
      return new ImagePod(
          rootfs,
          strings(config.path("Entrypoint")),
          strings(config.path("Cmd")),
          strings(config.path("Env")),
          config.path("User").asText("0:0"),
          config.path("WorkingDir").asText("/"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static List<String> strings(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asText()));
    return out;
  }

  private static void tar(String... args) {
    List<String> command = new ArrayList<>(List.of("tar"));
    command.addAll(List.of(args));
    RealCluster.Result r = RealCluster.Result.run(command, Map.of(), Duration.ofMinutes(2));
    if (r.code() != 0) {
      throw new IllegalStateException(String.join(" ", command) + ": " + r.output());
    }
  }

  /** Creates {@code path} (absolute, inside the image) as a directory: a mount point. */
  Path mountPoint(String path) {
    try {
      return Files.createDirectories(rootfs.resolve(path.substring(1)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
