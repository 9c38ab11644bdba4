package dev.stallwatch.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class QuantitiesTest {
  @ParameterizedTest(name = "{0} = {1}")
  @CsvSource({
    "2, 2",
    "500m, 0.5",
    "0.5, 0.5",
    "1k, 1000",
    "1Ki, 1024",
    "128Mi, 134217728",
    "1Gi, 1073741824",
    "1e3, 1000",
    "1.5G, 1500000000"
  })
  void parsesKubernetesQuantities(String text, String amount) {
    assertThat(Quantities.parse(text))
        .hasValueSatisfying(q -> assertThat(q).isEqualByComparingTo(new BigDecimal(amount)));
  }

  @ParameterizedTest
  @CsvSource({"abc", "1Zi", "''", "m"})
  void rejectsWhatIsNoQuantity(String text) {
    assertThat(Quantities.parse(text)).isEmpty();
  }
}
