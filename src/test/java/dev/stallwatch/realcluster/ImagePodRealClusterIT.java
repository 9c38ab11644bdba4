package dev.stallwatch.realcluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.deploy.NativeHelm;
import dev.stallwatch.operator.decision.EventReason;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The operator image run the way the chart's Deployment runs it, without a kubelet: the layers of
 * {@code target/jib-image.tar} unpacked into a root filesystem, the image's entrypoint started
 * under bubblewrap with what the rendered pod spec asks for — root filesystem read-only, only the
 * chart's volumes writable (its {@code /tmp} emptyDir), the pod's UID/GID, every capability
 * dropped, no new privileges, its own PID namespace — with the container's args and env as {@code
 * helm template} renders them, and in-cluster configuration: a real TokenRequest of the chart's
 * ServiceAccount and the cluster's CA in {@code /var/run/secrets/kubernetes.io/serviceaccount}, and
 * {@code KUBERNETES_SERVICE_HOST/PORT} pointing at the real API server on loopback. The chart's
 * probes answer, the seed stall is recorded, and the log has no complaint about the filesystem.
 *
 * <p>The release is rendered with {@code operator.stallAfter=10s} (a test cannot wait the default
 * 5m) and {@code metrics.port} a free port (the pod shares the host's network here); every other
 * value is the chart's default.
 */
@ExtendWith(RealClusterExtension.class)
@NativeHelm
class ImagePodRealClusterIT {
  static final String DS = "nvidia-container-toolkit";
  static final String GOOD = "nvcr.io/nvidia/k8s/container-toolkit:v1.17.0";
  static final String BROKEN = Scenario.UNPULLABLE + "nvidia/k8s/container-toolkit:v1.17.1";
  static final String SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";
  static final String POD = "image-pod-stallwatch-7c9d8-x2k4q";
  static final String SEED = "image-seed";

  static final int PORT = OperatorProcess.freePort();
  static final ChartInstall RELEASE =
      new ChartInstall(
          "image-pod",
          "image-pod",
          Map.of("operator.stallAfter", "10s", "metrics.port", String.valueOf(PORT)));

  static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  static RealCluster cluster;
  static Path bwrap;
  static ChildProcess pod;
  static Path log;
  static Map<String, Object> container;

  @BeforeAll
  static void start(RealCluster c) throws IOException {
    var found = ChildProcess.onPath("bwrap");
    String missing =
        found.isEmpty()
            ? "bwrap not on the PATH: apt-get install bubblewrap"
            : !Files.isRegularFile(ImagePod.TARBALL)
                ? ImagePod.TARBALL + " missing: ./mvnw -B -Pimage -DskipTests package"
                : null;
    if (missing != null) {
      if (Boolean.parseBoolean(System.getenv(RealCluster.REQUIRE))) {
        throw new IllegalStateException(missing + " (" + RealCluster.REQUIRE + "=true)");
      }
      Assumptions.abort(missing);
    }
    bwrap = found.get();
    cluster = c;
    Path dir = cluster.dir().resolve("image-pod");
    ImagePod image = ImagePod.unpack(ImagePod.TARBALL, dir);

    RELEASE.install(cluster);
    Map<String, Map<String, Object>> rendered = RenderedObjects.byKind(RELEASE.render(cluster));
    Map<String, Object> podSpec =
        RenderedObjects.path(rendered.get("Deployment"), "spec", "template", "spec");
    container = RenderedObjects.list(podSpec, "containers").get(0);

    List<String> command = new ArrayList<>(List.of(bwrap.toString(), "--die-with-parent"));
    command.addAll(List.of("--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts"));
    command.addAll(List.of("--hostname", POD));
    command.addAll(identity(podSpec));
    // The root filesystem as the pod's securityContext says; /dev and /proc as a runtime gives.
    String root =
        Boolean.TRUE.equals(securityContext(podSpec).get("readOnlyRootFilesystem"))
            ? "--ro-bind"
            : "--bind";
    image.mountPoint("/dev");
    image.mountPoint("/proc");
    command.addAll(
        List.of(root, image.rootfs().toString(), "/", "--dev", "/dev", "--proc", "/proc"));
    command.addAll(volumes(podSpec, image, dir));
    command.addAll(serviceAccount(image, dir));
    command.add("--clearenv");
    for (Map.Entry<String, String> e : environment(image).entrySet()) {
      command.addAll(List.of("--setenv", e.getKey(), e.getValue()));
    }
    command.addAll(List.of("--chdir", image.workingDir().isEmpty() ? "/" : image.workingDir()));
    // No `command:` in the pod spec: the image's entrypoint, the container's args for its Cmd.
    assertThat(container).doesNotContainKey("command");
    command.addAll(image.entrypoint());
    command.addAll(RenderedObjects.strings(container.get("args")));

    log = dir.resolve("operator.log");
    pod = ChildProcess.start(command, log);
  }

  @AfterAll
  static void stop() {
    if (pod != null) {
      pod.close();
    }
    if (cluster != null) {
      // The stall is left standing: take it off the shared cluster, out of later tests' sight.
      cluster.kubectl("delete", "namespace", SEED, "--ignore-not-found", "--wait=false");
    }
  }

  @Test
  void theImageRunAsTheChartsPodAnswersItsProbesAndRecordsTheSeedStall() throws IOException {
    Probe startup = probe("startupProbe");
    Probe liveness = probe("livenessProbe");
    Probe readiness = probe("readinessProbe");
    await("the startup probe " + startup + " answers 200")
        .atMost(Duration.ofMinutes(2))
        .until(() -> startup.answer() == 200 || !pod.alive());
    assertThat(pod.alive()).as(pod.output()).isTrue();
    await("the readiness probe " + readiness + " answers 200")
        .atMost(Scenario.WAIT)
        .until(() -> readiness.answer() == 200 || !pod.alive());
    assertThat(liveness.answer()).as("liveness " + liveness).isEqualTo(200);

    // What the kernel says of the operator's JVM: no capability, no new privileges, the pod's UID.
    ProcessHandle jvm =
        pod.descendants()
            .filter(p -> p.info().command().map(c -> c.endsWith("/java")).orElse(false))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no java process under bwrap"));
    String status = Files.readString(Path.of("/proc", String.valueOf(jvm.pid()), "status"));
    assertThat(status)
        .contains("CapEff:\t0000000000000000", "CapPrm:\t0000000000000000")
        .contains("CapBnd:\t0000000000000000", "NoNewPrivs:\t1");
    assertThat(Files.readString(Path.of("/proc", String.valueOf(jvm.pid()), "uid_map")).trim())
        .startsWith("65532 ");
    String mounts = Files.readString(Path.of("/proc", String.valueOf(jvm.pid()), "mountinfo"));
    assertThat(mounts.lines().filter(l -> l.split(" ")[4].equals("/")))
        .as("the root filesystem is mounted read-only")
        .singleElement()
        .satisfies(l -> assertThat(l.split(" ")[5]).startsWith("ro"));

    Scenario seed = Scenario.create(cluster, SEED, 3, 4);
    seed.rollOut(DS, GOOD, b -> b);
    cluster.kubectl("set", "image", "-n", SEED, "daemonset/" + DS, DS + "=" + BROKEN).ok();
    RolloutStall stall = seed.awaitActiveStall();
    assertThat(stall.getStatus().cause()).isEqualTo("ImagePull");
    assertThat(stall.getStatus().suspect()).isEqualTo("NewRevision");
    // The Event follows the RolloutStall's status write.
    await("one RolloutStalled Event")
        .atMost(Scenario.WAIT)
        .until(() -> seed.events(DS, EventReason.STALLED.reason()), e -> !e.isEmpty());
    assertThat(seed.events(DS, EventReason.STALLED.reason())).hasSize(1);
    await("stallwatch_rollout_stalled on the pod's /metrics")
        .atMost(Scenario.WAIT)
        .until(
            () -> get("/metrics").body(),
            m ->
                m.lines()
                    .anyMatch(
                        l ->
                            l.startsWith("stallwatch_rollout_stalled{")
                                && l.contains("daemonset=\"" + DS + "\"")
                                && l.contains("namespace=\"" + SEED + "\"")));

    String output = pod.output();
    assertThat(output)
        .as("the operator's log")
        .doesNotContainIgnoringCase("read-only file system")
        .doesNotContainIgnoringCase("not writable")
        .doesNotContainIgnoringCase("permission denied")
        .doesNotContain("AccessDeniedException")
        .doesNotContain("\"level\":\"ERROR\"")
        .contains("\"level\":\"INFO\"");
  }

  /** runAsUser / runAsGroup (the container's over the pod's) and the dropped capabilities. */
  static List<String> identity(Map<String, Object> podSpec) {
    Map<String, Object> ctx = securityContext(podSpec);
    Object uid = ctx.get("runAsUser");
    Object gid = ctx.get("runAsGroup");
    assertThat(uid).as("runAsUser").isEqualTo(65532);
    assertThat(gid).as("runAsGroup").isEqualTo(65532);
    assertThat(ctx.get("allowPrivilegeEscalation")).isEqualTo(false); // bwrap: no_new_privs
    List<String> flags = new ArrayList<>(List.of("--uid", uid.toString(), "--gid", gid.toString()));
    List<String> drop =
        RenderedObjects.strings(RenderedObjects.map(ctx, "capabilities").get("drop"));
    assertThat(drop).as("capabilities dropped").containsExactly("ALL");
    flags.addAll(List.of("--cap-drop", "ALL"));
    return flags;
  }

  /** The pod's securityContext with the container's on top. */
  static Map<String, Object> securityContext(Map<String, Object> podSpec) {
    Map<String, Object> ctx = new LinkedHashMap<>(RenderedObjects.map(podSpec, "securityContext"));
    ctx.putAll(RenderedObjects.map(container, "securityContext"));
    return ctx;
  }

  /** Each volumeMount of the container, writable only where it is an emptyDir. */
  static List<String> volumes(Map<String, Object> podSpec, ImagePod image, Path dir)
      throws IOException {
    List<String> flags = new ArrayList<>();
    Map<String, Map<String, Object>> volumes = new LinkedHashMap<>();
    for (Map<String, Object> v : RenderedObjects.list(podSpec, "volumes")) {
      volumes.put((String) v.get("name"), v);
    }
    for (Map<String, Object> mount : RenderedObjects.list(container, "volumeMounts")) {
      Map<String, Object> volume = volumes.get(mount.get("name"));
      assertThat(volume).as("volume %s", mount.get("name")).containsKey("emptyDir");
      Path host =
          Files.createDirectories(dir.resolve("volumes").resolve((String) mount.get("name")));
      String at = (String) mount.get("mountPath");
      image.mountPoint(at);
      flags.addAll(
          List.of(
              Boolean.TRUE.equals(mount.get("readOnly")) ? "--ro-bind" : "--bind",
              host.toString(),
              at));
    }
    return flags;
  }

  /** What the kubelet projects: a TokenRequest's token, the cluster's CA, the namespace. */
  static List<String> serviceAccount(ImagePod image, Path dir) throws IOException {
    Path sa = Files.createDirectories(dir.resolve("serviceaccount"));
    Files.writeString(
        sa.resolve("token"), cluster.serviceAccountToken(RELEASE.namespace(), RELEASE.fullname()));
    Files.copy(
        cluster.caCertificate(),
        sa.resolve("ca.crt"),
        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    Files.writeString(sa.resolve("namespace"), RELEASE.namespace());
    for (Path p = image.rootfs().resolve(SERVICE_ACCOUNT_DIR.substring(1));
        !p.equals(image.rootfs());
        p = p.getParent()) {
      assertThat(Files.isSymbolicLink(p)).as("%s is a symlink in the image", p).isFalse();
    }
    image.mountPoint(SERVICE_ACCOUNT_DIR);
    return List.of("--ro-bind", sa.toString(), SERVICE_ACCOUNT_DIR);
  }

  /**
   * The image's environment, then the container's (fieldRefs resolved as the kubelet would), then
   * what the kubelet adds: the API server's service address (here: loopback) and HOSTNAME.
   */
  static Map<String, String> environment(ImagePod image) {
    Map<String, String> env = new LinkedHashMap<>();
    for (String kv : image.env()) {
      int eq = kv.indexOf('=');
      env.put(kv.substring(0, eq), kv.substring(eq + 1));
    }
    for (Map<String, Object> e : RenderedObjects.list(container, "env")) {
      String name = (String) e.get("name");
      if (e.containsKey("value")) {
        env.put(name, String.valueOf(e.get("value")));
        continue;
      }
      Object field = RenderedObjects.path(e, "valueFrom", "fieldRef").get("fieldPath");
      env.put(
          name,
          switch (String.valueOf(field)) {
            case "metadata.namespace" -> RELEASE.namespace();
            case "metadata.name" -> POD;
            default -> throw new AssertionError("unsupported env source " + e);
          });
    }
    URI api = cluster.apiServer();
    env.put("KUBERNETES_SERVICE_HOST", api.getHost());
    env.put("KUBERNETES_SERVICE_PORT", String.valueOf(api.getPort()));
    env.put("HOSTNAME", POD);
    assertThat(env).doesNotContainKey("KUBECONFIG");
    return env;
  }

  /** An httpGet probe of the container: path and port (a name resolved to its containerPort). */
  record Probe(String path, int port) {
    int answer() {
      try {
        return HTTP.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                    .timeout(Duration.ofSeconds(5))
                    .build(),
                HttpResponse.BodyHandlers.discarding())
            .statusCode();
      } catch (IOException e) {
        return 0;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return 0;
      }
    }
  }

  static Probe probe(String kind) {
    Map<String, Object> get = RenderedObjects.path(container, kind, "httpGet");
    Object port = get.get("port");
    int number =
        port instanceof Number n
            ? n.intValue()
            : RenderedObjects.list(container, "ports").stream()
                .filter(p -> port.equals(p.get("name")))
                .map(p -> ((Number) p.get("containerPort")).intValue())
                .findFirst()
                .orElseThrow(() -> new AssertionError(kind + ": no port named " + port));
    assertThat(number).as(kind + " port").isEqualTo(PORT);
    return new Probe((String) get.get("path"), number);
  }

  static HttpResponse<String> get(String path) {
    try {
      return HTTP.send(
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + PORT + path))
              .timeout(Duration.ofSeconds(5))
              .build(),
          HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
