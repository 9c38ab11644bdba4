package dev.stallwatch.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ApiPathTest {

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      nullValues = "-",
      value = {
        "/api/v1/namespaces/ns/pods/p/status?fieldManager=x | '' | v1 | ns | pods | p | status",
        "/apis/apps/v1/daemonsets?limit=500 | apps | v1 | '' | daemonsets | '' | ''",
        "/apis/example.dev/v1/namespaces/default/widgets/w1 | example.dev | v1 | default | widgets | w1 | ''",
        "/api/v1/nodes/n1 | '' | v1 | '' | nodes | n1 | ''",
        "/api/v1/namespaces/kube-system | '' | v1 | '' | namespaces | kube-system | ''",
        "/api/v1/namespaces | '' | v1 | '' | namespaces | '' | ''",
        "/apis/example.dev | example.dev | '' | '' | '' | '' | ''",
        "/api?timeout=32s | '' | '' | '' | '' | '' | ''"
      })
  void requestPathsAreTakenApart(
      String target,
      String group,
      String version,
      String namespace,
      String plural,
      String name,
      String sub) {
    ApiPath path = ApiPath.parse(target);

    assertThat(path.group()).isEqualTo(group);
    assertThat(path.version()).isEqualTo(version);
    assertThat(path.namespace()).isEqualTo(namespace);
    assertThat(path.plural()).isEqualTo(plural);
    assertThat(path.name()).isEqualTo(name);
    assertThat(path.subresource()).isEqualTo(sub);
    assertThat(path.rawPath()).doesNotContain("?");
  }

  @ParameterizedTest(name = "{0} is discovery: {1}")
  @CsvSource({
    "/api, true",
    "/api/v1, true",
    "/apis, true",
    "/apis/apps, true",
    "/apis/apps/v1, true",
    "/api/v1/pods, false",
    "/version, false"
  })
  void discoveryPathsAreRecognised(String target, boolean discovery) {
    assertThat(ApiPath.parse(target).isDiscovery()).isEqualTo(discovery);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "/api/v1/events?fieldSelector=involvedObject.name%3Dp%2Creason%3DX&limit=5 | involvedObject.name=p,reason=X",
        "/api/v1/pods?fieldSelector=spec.nodeName=n1 | spec.nodeName=n1"
      })
  void queryParametersAreDecoded(String target, String selector) {
    assertThat(ApiPath.parse(target).param("fieldSelector")).contains(selector);
  }
}
