package dev.stallwatch.realcluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;

/**
 * The API server's audit log (JSON lines, {@code cluster.sh} with {@code STALLWATCH_AUDIT_POLICY})
 * read as requests per verb. The policy logs one user only (the operator's ServiceAccount) at level
 * Metadata without the RequestReceived stage: a watch counts when its response starts, any other
 * request when it completes.
 */
final class AuditLog {
  private static final ObjectMapper JSON = new ObjectMapper();

  private AuditLog() {}

  /** A policy that logs the requests of {@code user} only, at level Metadata. */
  static String policyFor(String user) {
    return """
        apiVersion: audit.k8s.io/v1
        kind: Policy
        omitStages: ["RequestReceived"]
        rules:
        - level: Metadata
          users: ["%s"]
        - level: None
        """
        .formatted(user);
  }

  /** Requests per verb (watch by the resource too, e.g. {@code watch pods}) in [from, to). */
  static Map<String, Integer> countsByVerb(Path log, Instant from, Instant to) {
    return counts(log, from, to, (key, code) -> key);
  }

  /**
   * Requests per verb and response code in [from, to), e.g. {@code list pods 200} and {@code list
   * pods 410} (a continue token whose revision was compacted away).
   */
  static Map<String, Integer> countsByVerbAndCode(Path log, Instant from, Instant to) {
    return counts(log, from, to, (key, code) -> key + " " + code);
  }

  private static Map<String, Integer> counts(
      Path log,
      Instant from,
      Instant to,
      java.util.function.BiFunction<String, Integer, String> by) {
    Map<String, Integer> counts = new TreeMap<>();
    if (!Files.exists(log)) {
      return counts;
    }
    try (BufferedReader in = Files.newBufferedReader(log)) {
      String line;
      while ((line = in.readLine()) != null) {
        if (line.isBlank()) {
          continue;
        }
        JsonNode e = JSON.readTree(line);
        String verb = e.path("verb").asText();
        String stage = e.path("stage").asText();
        boolean counted =
            "watch".equals(verb)
                ? "ResponseStarted".equals(stage)
                : "ResponseComplete".equals(stage);
        if (!counted) {
          continue;
        }
        Instant at = Instant.parse(e.path("requestReceivedTimestamp").asText());
        if (at.isBefore(from) || !at.isBefore(to)) {
          continue;
        }
        String resource = e.path("objectRef").path("resource").asText("");
        String sub = e.path("objectRef").path("subresource").asText("");
        String key = verb + " " + resource + (sub.isEmpty() ? "" : "/" + sub);
        counts.merge(by.apply(key, e.path("responseStatus").path("code").asInt()), 1, Integer::sum);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("reading the audit log " + log, e);
    }
    return counts;
  }
}
