package dev.stallwatch.crd;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;

/**
 * The deterministic name of the RolloutStall for one DaemonSet and one new revision: {@code
 * <daemonset>-<revision hash>}. A restart computes the same name, so it finds the stall it wrote
 * before instead of creating a second one.
 */
public final class StallName {
  /** Longest object name the API accepts (DNS-1123 subdomain). */
  static final int MAX_LENGTH = 253;

  private static final int DIGEST_CHARS = 10;

  private StallName() {}

  /**
   * The name for a stall of {@code daemonSet}'s rollout to {@code revisionHash}. Lower-cased,
   * characters outside {@code [a-z0-9.-]} replaced by {@code -}; when longer than 253 characters
   * the DaemonSet part is cut and a digest of the full name keeps it unique.
   */
  public static String of(String daemonSet, String revisionHash) {
    String hash = revisionHash == null || revisionHash.isBlank() ? "norevision" : revisionHash;
    String full = sanitize(daemonSet + "-" + hash);
    if (full.length() <= MAX_LENGTH) {
      return full;
    }
    String suffix = "-" + digest(full);
    String head = full.substring(0, MAX_LENGTH - suffix.length());
    return trimEdges(head) + suffix;
  }

  private static String sanitize(String raw) {
    String lower = raw.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9.-]", "-");
    return trimEdges(lower).isEmpty() ? "stall" : trimEdges(lower);
  }

  // DNS-1123 names start and end with an alphanumeric character.
  private static String trimEdges(String name) {
    return name.replaceAll("^[^a-z0-9]+", "").replaceAll("[^a-z0-9]+$", "");
  }

  private static String digest(String value) {
    try {
      byte[] sha =
          MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(sha).substring(0, DIGEST_CHARS);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JDK", e);
    }
  }
}
