package dev.stallwatch.embedded;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.JarURLConnection;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/**
 * Finds the CustomResourceDefinitions to preload: every {@code *.yml}/{@code *.yaml} in the
 * classpath folder {@code crd/} (as packaged in the jar) and in a {@code crd/} directory on disk
 * (as generated in a checkout). A CRD found in both places is taken from the directory.
 */
final class CrdFiles {

  private static final String FOLDER = "crd";
  private final KubernetesSerialization serialization = new KubernetesSerialization();

  /** CRDs by name, classpath first, then the directory (overriding). */
  List<CustomResourceDefinition> load(ClassLoader classLoader, Path directory) {
    Map<String, CustomResourceDefinition> byName = new LinkedHashMap<>();
    try {
      for (URL folder : Collections.list(classLoader.getResources(FOLDER))) {
        for (URL file : yamlFilesIn(folder)) {
          try (InputStream in = file.openStream()) {
            parse(in, file.toString()).forEach(crd -> byName.put(crd.getMetadata().getName(), crd));
          }
        }
      }
      if (Files.isDirectory(directory)) {
        try (Stream<Path> files = Files.list(directory)) {
          for (Path file : files.filter(CrdFiles::isYaml).sorted().toList()) {
            try (InputStream in = Files.newInputStream(file)) {
              parse(in, file.toString())
                  .forEach(crd -> byName.put(crd.getMetadata().getName(), crd));
            }
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read CRD files: " + e.getMessage(), e);
    }
    return List.copyOf(byName.values());
  }

  /** The CRDs in one YAML stream; other kinds are ignored. */
  List<CustomResourceDefinition> parse(InputStream in, String source) {
    Object parsed;
    try {
      parsed = serialization.unmarshal(in);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          "cannot parse CRD file " + source + ": " + e.getMessage(), e);
    }
    List<Object> documents =
        parsed instanceof List<?> list ? new ArrayList<>(list) : List.of(parsed);
    List<CustomResourceDefinition> crds = new ArrayList<>();
    for (Object document : documents) {
      if (document instanceof CustomResourceDefinition crd) {
        if (crd.getMetadata() == null || crd.getMetadata().getName() == null) {
          throw new IllegalArgumentException("CRD in " + source + " has no metadata.name");
        }
        crds.add(crd);
      } else if (document != null && !(document instanceof HasMetadata)) {
        throw new IllegalArgumentException("CRD file " + source + " holds no Kubernetes object");
      }
    }
    return crds;
  }

  private static boolean isYaml(Path file) {
    String name = file.getFileName().toString();
    return name.endsWith(".yml") || name.endsWith(".yaml");
  }

  private static List<URL> yamlFilesIn(URL folder) throws IOException {
    List<URL> files = new ArrayList<>();
    if (folder.getProtocol().equals("file")) {
      try (Stream<Path> list = Files.list(Path.of(folder.toURI()))) {
        for (Path p : list.filter(CrdFiles::isYaml).sorted().toList()) {
          files.add(p.toUri().toURL());
        }
      } catch (URISyntaxException e) {
        throw new IOException("bad classpath folder " + folder, e);
      }
    } else if (folder.getProtocol().equals("jar")) {
      JarURLConnection connection = (JarURLConnection) folder.openConnection();
      connection.setUseCaches(false);
      try (JarFile jar = connection.getJarFile()) {
        Enumeration<JarEntry> entries = jar.entries();
        List<String> names = new ArrayList<>();
        while (entries.hasMoreElements()) {
          String name = entries.nextElement().getName();
          if (name.startsWith(FOLDER + "/") && !name.endsWith("/") && isYaml(Path.of(name))) {
            names.add(name);
          }
        }
        for (String name : names.stream().sorted().toList()) {
          files.add(new URL("jar:" + connection.getJarFileURL() + "!/" + name));
        }
      }
    }
    return files;
  }
}
