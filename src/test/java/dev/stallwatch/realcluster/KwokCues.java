package dev.stallwatch.realcluster;

import dev.stallwatch.sim.ImageBehavior;
import dev.stallwatch.sim.KubeletScript;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeProjection;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

/**
 * The cues kwok's Stages ({@code src/test/realcluster/kwok/stages.yaml}) act on: translates what
 * the simulator's kubelet does with an image, and a volume whose object does not exist, into names
 * kwok acts the same on, and says what a scenario asks of a kubelet that kwok cannot act at all.
 *
 * <p>kwok keys a pod's behaviour off image names: an init container's {@code initwaiting} → it runs
 * and never exits (Init:0/1); else the main containers' {@value #UNPULLABLE} prefix → ErrImagePull
 * then ImagePullBackOff; {@code crashloop} in the name → CrashLoopBackOff; {@code neverready} →
 * running, never Ready; anything else → Running and Ready at once. Other init containers complete
 * at once, and no volume is ever mounted, missing or not.
 */
final class KwokCues {

  static final String UNPULLABLE = Scenario.UNPULLABLE;
  static final String CRASH_LOOP = "crashloop";
  static final String NEVER_READY = "neverready";
  static final String INIT_WAITING = "initwaiting";
  static final String MISSING = "-kwok-missing";

  private final KubeletScript script;

  KwokCues(KubeletScript script) {
    this.script = script;
  }

  /** The image kwok plays as the script plays {@code image}; already translated names stay. */
  String kwokImage(String image) {
    if (image == null || translated(image)) {
      return image;
    }
    ImageBehavior b = script.behavior("", image);
    if (b.pullFails()) {
      return UNPULLABLE + image;
    }
    if (b.crashes()) {
      return marked(image, CRASH_LOOP);
    }
    if (b.readyAfter() == null) {
      return marked(image, NEVER_READY);
    }
    return image;
  }

  /** The image kwok plays as the script plays init container {@code image}. */
  String kwokInitImage(String image) {
    if (image == null || translated(image)) {
      return image;
    }
    ImageBehavior b = script.behavior("", image);
    return b.completesAfter() == null && !b.pullFails() && !b.crashes()
        ? marked(image, INIT_WAITING)
        : image;
  }

  /**
   * Translates, in place, the images of every container of {@code spec} and the names of the
   * ConfigMaps and Secrets its volumes need that do not exist; {@code exists} answers {@code
   * configmap/NAME} and {@code secret/NAME}.
   */
  void translate(PodSpec spec, Predicate<String> exists) {
    Optional.ofNullable(spec.getInitContainers())
        .ifPresent(all -> all.forEach(c -> c.setImage(kwokInitImage(c.getImage()))));
    Optional.ofNullable(spec.getContainers())
        .ifPresent(all -> all.forEach(c -> c.setImage(kwokImage(c.getImage()))));
    UnaryOperator<String> configMap = n -> missing(n, "configmap", exists);
    UnaryOperator<String> secret = n -> missing(n, "secret", exists);
    for (Volume v : Optional.ofNullable(spec.getVolumes()).orElse(List.of())) {
      if (v.getConfigMap() != null && !Boolean.TRUE.equals(v.getConfigMap().getOptional())) {
        v.getConfigMap().setName(configMap.apply(v.getConfigMap().getName()));
      }
      if (v.getSecret() != null && !Boolean.TRUE.equals(v.getSecret().getOptional())) {
        v.getSecret().setSecretName(secret.apply(v.getSecret().getSecretName()));
      }
      if (v.getProjected() == null || v.getProjected().getSources() == null) {
        continue;
      }
      for (VolumeProjection p : v.getProjected().getSources()) {
        if (p.getConfigMap() != null && !Boolean.TRUE.equals(p.getConfigMap().getOptional())) {
          p.getConfigMap().setName(configMap.apply(p.getConfigMap().getName()));
        }
        if (p.getSecret() != null && !Boolean.TRUE.equals(p.getSecret().getOptional())) {
          p.getSecret().setName(secret.apply(p.getSecret().getName()));
        }
      }
    }
  }

  private static String missing(String name, String kind, Predicate<String> exists) {
    return name == null || name.endsWith(MISSING) || exists.test(kind + "/" + name)
        ? name
        : name + MISSING;
  }

  private static boolean translated(String image) {
    return image.startsWith(UNPULLABLE)
        || image.contains(CRASH_LOOP)
        || image.contains(NEVER_READY)
        || image.contains(INIT_WAITING);
  }

  /** {@code repo:tag} → {@code repo:tag-MARK}; an untagged image gets the tag {@code MARK}. */
  private static String marked(String image, String mark) {
    String last = image.substring(image.lastIndexOf('/') + 1);
    return last.contains(":") ? image + "-" + mark : image + ":" + mark;
  }

  /**
   * Why kwok cannot play pods of {@code spec} as the script does, one sentence per reason; empty
   * when it can.
   */
  List<String> unplayable(PodSpec spec) {
    List<String> why = new ArrayList<>();
    for (Container c : Optional.ofNullable(spec.getInitContainers()).orElse(List.of())) {
      ImageBehavior b = script.behavior("", c.getImage());
      if (b.pullFails() || b.crashes()) {
        why.add(
            "kwok's init containers either complete or run forever; "
                + c.getName()
                + " ("
                + c.getImage()
                + ") "
                + (b.pullFails() ? "cannot be pulled" : "crashes")
                + " in the simulator");
      }
    }
    return why;
  }

  /** Why kwok cannot play this script at all (it treats nodes apart); empty when it can. */
  List<String> unplayableScript() {
    Set<String> apart = script.nodesTreatedApart();
    if (apart.isEmpty()) {
      return List.of();
    }
    return List.of(
        "kwok's Stages key on image names, not nodes; the kubelet script treats "
            + String.join(", ", apart)
            + " apart");
  }
}
