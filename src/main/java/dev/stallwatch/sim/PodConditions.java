package dev.stallwatch.sim;

import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodStatus;
import java.util.ArrayList;
import java.util.List;

/** Reading and replacing one condition of a pod status, keeping the others in place. */
final class PodConditions {

  private PodConditions() {}

  static PodCondition condition(PodStatus status, String type) {
    if (status == null || status.getConditions() == null) {
      return null;
    }
    return status.getConditions().stream()
        .filter(c -> type.equals(c.getType()))
        .findFirst()
        .orElse(null);
  }

  static List<PodCondition> replace(List<PodCondition> conditions, PodCondition c) {
    List<PodCondition> out = new ArrayList<>();
    boolean replaced = false;
    for (PodCondition old : conditions == null ? List.<PodCondition>of() : conditions) {
      if (old.getType().equals(c.getType())) {
        out.add(c);
        replaced = true;
      } else {
        out.add(old);
      }
    }
    if (!replaced) {
      out.add(c);
    }
    return out;
  }
}
