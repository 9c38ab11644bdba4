package dev.stallwatch.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PodColumnsTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** A pod as the server stores it: every pod has a name (added here when the row has none). */
  private static JsonNode pod(String json) throws Exception {
    JsonNode pod = JSON.readTree(json.replace('\'', '"'));
    ObjectNode meta = ((ObjectNode) pod).with("metadata");
    if (!meta.has("name")) {
      meta.put("name", "p");
    }
    return pod;
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "running and ready | {'spec':{'containers':[{}]},'status':{'phase':'Running','containerStatuses':[{'ready':true,'state':{'running':{}}}]}} | Running",
        "a waiting container's reason wins | {'spec':{'containers':[{}]},'status':{'phase':'Running','containerStatuses':[{'state':{'waiting':{'reason':'CrashLoopBackOff'}}}]}} | CrashLoopBackOff",
        "image pull errors show as such | {'spec':{'containers':[{}]},'status':{'phase':'Pending','containerStatuses':[{'state':{'waiting':{'reason':'ImagePullBackOff'}}}]}} | ImagePullBackOff",
        "terminated without reason shows the exit code | {'spec':{'containers':[{}]},'status':{'phase':'Failed','containerStatuses':[{'state':{'terminated':{'exitCode':3}}}]}} | ExitCode:3",
        "terminated by signal | {'spec':{'containers':[{}]},'status':{'phase':'Failed','containerStatuses':[{'state':{'terminated':{'exitCode':137,'signal':9}}}]}} | Signal:9",
        "completed beside a running ready container is Running | {'spec':{'containers':[{},{}]},'status':{'phase':'Running','conditions':[{'type':'Ready','status':'True'}],'containerStatuses':[{'ready':true,'state':{'running':{}}},{'state':{'terminated':{'reason':'Completed'}}}]}} | Running",
        "completed beside a running container, pod not Ready, is NotReady | {'spec':{'containers':[{},{}]},'status':{'phase':'Running','containerStatuses':[{'ready':true,'state':{'running':{}}},{'state':{'terminated':{'reason':'Completed'}}}]}} | NotReady",
        "init container killed by a signal | {'spec':{'initContainers':[{}],'containers':[{}]},'status':{'phase':'Pending','initContainerStatuses':[{'state':{'terminated':{'exitCode':137,'signal':9}}}]}} | Init:Signal:9",
        "init container still running | {'spec':{'initContainers':[{},{}],'containers':[{}]},'status':{'phase':'Pending','initContainerStatuses':[{'state':{'terminated':{'exitCode':0}}},{'state':{'running':{}}}]}} | Init:1/2",
        "init container failing | {'spec':{'initContainers':[{}],'containers':[{}]},'status':{'phase':'Pending','initContainerStatuses':[{'state':{'terminated':{'exitCode':1,'reason':'Error'}}}]}} | Init:Error",
        "init container crash looping | {'spec':{'initContainers':[{}],'containers':[{}]},'status':{'phase':'Pending','initContainerStatuses':[{'state':{'waiting':{'reason':'CrashLoopBackOff'}}}]}} | Init:CrashLoopBackOff",
        "pending without statuses | {'spec':{'containers':[{}]},'status':{'phase':'Pending'}} | Pending",
        "a pod reason such as Evicted wins over the phase | {'spec':{'containers':[{}]},'status':{'phase':'Failed','reason':'Evicted'}} | Evicted",
        "deleted pods are Terminating | {'metadata':{'deletionTimestamp':'2026-12-02T10:00:00Z'},'spec':{'containers':[{}]},'status':{'phase':'Running'}} | Terminating",
        "deleted pods on a lost node are Unknown | {'metadata':{'deletionTimestamp':'2026-12-02T10:00:00Z'},'spec':{'containers':[{}]},'status':{'phase':'Running','reason':'NodeLost'}} | Unknown"
      })
  void statusIsDerivedAsKubectlShowsIt(String why, String json, String status) throws Exception {
    assertThat(PodColumns.status(pod(json))).isEqualTo(status);
  }

  @org.junit.jupiter.api.Test
  void aPodThatCannotBeReadIsUnknown() throws Exception {
    assertThat(PodColumns.status(JSON.readTree("{\"spec\":{}}"))).isEqualTo("Unknown");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "no statuses yet | {'spec':{'containers':[{},{}]}} | 0/2 | 0",
        "one of two ready | {'spec':{'containers':[{},{}]},'status':{'containerStatuses':[{'ready':true},{'ready':false}]}} | 1/2 | 0",
        "restarts summed with the last restart's age | {'spec':{'containers':[{},{}]},'status':{'containerStatuses':[{'ready':true,'restartCount':2,'lastState':{'terminated':{'finishedAt':'2026-12-02T11:55:00Z'}}},{'restartCount':3,'lastState':{'terminated':{'finishedAt':'2026-12-02T11:00:00Z'}}}]}} | 1/2 | 5 (5m ago)"
      })
  void readyAndRestartsCountContainers(String why, String json, String ready, String restarts)
      throws Exception {
    JsonNode pod = pod(json);

    assertThat(PodColumns.ready(pod)).isEqualTo(ready);
    assertThat(PodColumns.restarts(pod, Instant.parse("2026-12-02T12:00:00Z"))).isEqualTo(restarts);
  }
}
