package dev.stallwatch.kube;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

/**
 * The one Jackson mapper of this package and {@code kube.dump}, configured by fabric8 for its model
 * classes.
 */
public final class KubeJson {

  public static final ObjectMapper MAPPER = new JsonMapper();

  static {
    // Registers fabric8's modules (Quantity, IntOrString, unmatched field types) on MAPPER.
    new KubernetesSerialization(MAPPER, true);
  }

  private KubeJson() {}
}
