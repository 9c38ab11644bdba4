package dev.stallwatch.sim;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What the simulated kubelets do, per node and per image: a default behaviour, overrides per image
 * and per (node, image), and per node the resources the kubelet sees in use that the scheduler does
 * not (static pods, a race) — which is what makes admission reject a pod ({@code OutOfcpu}) — and
 * how long stopping a pod's containers takes.
 */
public final class KubeletScript {

  private ImageBehavior defaults = ImageBehavior.healthy();
  private final Map<String, ImageBehavior> byImage = new HashMap<>();
  private final Map<String, ImageBehavior> byNodeAndImage = new HashMap<>();
  private final Map<String, Map<String, BigDecimal>> hiddenUsage = new HashMap<>();
  private Duration terminationTime = Duration.ofSeconds(1);

  /** The behaviour of any image nothing more specific names. */
  public KubeletScript defaults(ImageBehavior behavior) {
    this.defaults = behavior;
    return this;
  }

  public KubeletScript image(String image, ImageBehavior behavior) {
    byImage.put(image, behavior);
    return this;
  }

  public KubeletScript image(String node, String image, ImageBehavior behavior) {
    byNodeAndImage.put(node + "\n" + image, behavior);
    return this;
  }

  /**
   * Resources in use on {@code node} that only the kubelet counts (e.g. {@code cpu} {@code
   * "3800m"}).
   */
  public KubeletScript hiddenUsage(String node, String resource, String quantity) {
    hiddenUsage
        .computeIfAbsent(node, k -> new TreeMap<>())
        .put(
            resource,
            io.fabric8.kubernetes.api.model.Quantity.getAmountInBytes(
                new io.fabric8.kubernetes.api.model.Quantity(quantity)));
    return this;
  }

  /** How long the kubelet takes to stop a deleted pod's containers (default 1 s). */
  public KubeletScript terminationTime(Duration d) {
    this.terminationTime = d;
    return this;
  }

  /** What the kubelet of {@code node} does with a container of {@code image}. */
  public ImageBehavior behavior(String node, String image) {
    ImageBehavior b = byNodeAndImage.get(node + "\n" + image);
    if (b != null) {
      return b;
    }
    return byImage.getOrDefault(image, defaults);
  }

  /**
   * The nodes this script treats apart from the others: named by a per-node image behaviour or
   * carrying hidden usage.
   */
  public Set<String> nodesTreatedApart() {
    Set<String> nodes = new TreeSet<>(hiddenUsage.keySet());
    byNodeAndImage.keySet().forEach(k -> nodes.add(k.substring(0, k.indexOf('\n'))));
    return nodes;
  }

  Map<String, BigDecimal> hiddenUsage(String node) {
    return hiddenUsage.getOrDefault(node, Map.of());
  }

  Duration terminationTime() {
    return terminationTime;
  }
}
