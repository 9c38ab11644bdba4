package dev.stallwatch.deploy;

import com.marcnuri.helm.jni.NativeLibrary;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.ServiceLoader;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs a test only where helm-java has its native Helm library: the pom adds it on linux/amd64
 * (profile {@code helm-linux-amd64}). Elsewhere the test is skipped with one line saying why.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(NativeHelm.Condition.class)
public @interface NativeHelm {

  /** Enabled when a helm-java {@link NativeLibrary} is on the test class path. */
  final class Condition implements ExecutionCondition {
    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
      if (ServiceLoader.load(NativeLibrary.class).findFirst().isPresent()) {
        return ConditionEvaluationResult.enabled("helm-java's native Helm is on the class path");
      }
      return ConditionEvaluationResult.disabled(
          "no native Helm for "
              + System.getProperty("os.name")
              + "/"
              + System.getProperty("os.arch")
              + ": helm-java's native library is added on linux/amd64 only (pom profile"
              + " helm-linux-amd64)");
    }
  }
}
