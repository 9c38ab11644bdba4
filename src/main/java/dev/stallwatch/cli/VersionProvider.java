package dev.stallwatch.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import picocli.CommandLine;

/** {@code --version} of every root command: the version that Maven filtered into the jar. */
public final class VersionProvider implements CommandLine.IVersionProvider {
  @Override
  public String[] getVersion() throws IOException {
    Properties props = new Properties();
    try (InputStream in =
        VersionProvider.class.getResourceAsStream("/dev/stallwatch/version.properties")) {
      if (in != null) {
        props.load(in);
      }
    }
    return new String[] {
      "stallwatch " + props.getProperty("version", "unknown"),
      "Java " + System.getProperty("java.version")
    };
  }
}
