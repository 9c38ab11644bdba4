package dev.stallwatch.realcluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The JVM options the operator image starts {@code java} with, read from the image's entrypoint in
 * pom.xml (Jib): tests that run the operator jar as the chart's pod would run it take them from
 * there, so that what they measure is what ships.
 */
public final class ImageJvmFlags {
  private static final Pattern ENTRYPOINT =
      Pattern.compile("<entrypoint>(.*?)</entrypoint>", Pattern.DOTALL);
  private static final Pattern ARG = Pattern.compile("<arg>([^<]*)</arg>");

  private ImageJvmFlags() {}

  /** The entrypoint's {@code -XX:} and {@code -X} options, in order. */
  public static List<String> flags() {
    return flags(RealCluster.PROJECT.resolve("pom.xml"));
  }

  static List<String> flags(Path pom) {
    String xml;
    try {
      xml = Files.readString(pom);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Matcher entry = ENTRYPOINT.matcher(xml);
    if (!entry.find()) {
      throw new IllegalStateException(pom + " has no image entrypoint");
    }
    List<String> flags = new ArrayList<>();
    Matcher arg = ARG.matcher(entry.group(1));
    while (arg.find()) {
      if (arg.group(1).startsWith("-X")) {
        flags.add(arg.group(1));
      }
    }
    if (flags.isEmpty()) {
      throw new IllegalStateException(pom + ": the image's entrypoint has no JVM options");
    }
    return List.copyOf(flags);
  }
}
