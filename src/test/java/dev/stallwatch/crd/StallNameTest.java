package dev.stallwatch.crd;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class StallNameTest {
  private static final String DNS_1123_SUBDOMAIN =
      "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";

  @Test
  void joinsDaemonSetAndRevisionHash() {
    assertThat(StallName.of("nvidia-container-toolkit", "7d9f8c6b5"))
        .isEqualTo("nvidia-container-toolkit-7d9f8c6b5");
  }

  @Test
  void isTheSameForTheSameRolloutAndDiffersAcrossRevisions() {
    assertThat(StallName.of("ds", "aaa")).isEqualTo(StallName.of("ds", "aaa"));
    assertThat(StallName.of("ds", "aaa")).isNotEqualTo(StallName.of("ds", "bbb"));
  }

  @Test
  void missingHashStillGivesAValidName() {
    assertThat(StallName.of("ds", null)).isEqualTo("ds-norevision");
  }

  @Test
  void longNamesAreCutTo253AndStayDistinct() {
    String longDs = "a".repeat(250);
    String one = StallName.of(longDs, "hash1");
    String two = StallName.of(longDs, "hash2");
    assertThat(one).hasSizeLessThanOrEqualTo(253).matches(DNS_1123_SUBDOMAIN);
    assertThat(two).hasSizeLessThanOrEqualTo(253).matches(DNS_1123_SUBDOMAIN);
    assertThat(one).isNotEqualTo(two);
  }

  @Test
  void unsafeCharactersAreReplacedAndEdgesTrimmed() {
    assertThat(StallName.of("My_DS", "Hash-")).isEqualTo("my-ds-hash").matches(DNS_1123_SUBDOMAIN);
  }
}
