package dev.stallwatch.demo;

import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.embedded.EmbeddedApiServer;
import dev.stallwatch.kube.Snapshots;
import dev.stallwatch.operator.HealthEndpoint;
import dev.stallwatch.operator.OperatorSettings;
import dev.stallwatch.operator.StallwatchOperator;
import dev.stallwatch.operator.decision.EventReason;
import dev.stallwatch.report.TableReport;
import dev.stallwatch.rollout.AnalyzerSettings;
import dev.stallwatch.rollout.Durations;
import dev.stallwatch.rollout.Phase;
import dev.stallwatch.rollout.RolloutAnalyzer;
import dev.stallwatch.rollout.RolloutVerdict;
import dev.stallwatch.sim.Scenario;
import dev.stallwatch.sim.SimClock;
import dev.stallwatch.sim.SimulatedCluster;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.BooleanSupplier;

/**
 * One run of {@code stallwatch demo}: the embedded API server, the simulator playing a scenario on
 * a fast clock, and the real operator watching it; prints what a person would see with kubectl and
 * curl at each turn of the story.
 */
final class DemoStory implements AutoCloseable {
  private final PrintWriter out;
  private final Scenario scenario;
  private final StoryClock clock = new StoryClock();
  private final long scale;

  /**
   * Simulated seconds per real second now: {@code scale} while the story plays, 1 once it is told
   * (so a cluster served for kubectl and {@code stallwatch wait} ages as a real one does).
   */
  private volatile long speed;

  private final Duration stallAfter;
  private final String namespace;
  private final String name;
  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private EmbeddedApiServer api;
  private SimulatedCluster sim;
  private StallwatchOperator operator;
  private HealthEndpoint http;
  private KubectlTable kubectl;
  private int eventsShown;
  private Thread driver;
  private static final Duration STEP = Duration.ofSeconds(5);
  private static final Duration RECHECK = Duration.ofMillis(100);

  DemoStory(PrintWriter out, Scenario scenario, long scale, Duration stallAfter) {
    this.out = out;
    this.scenario = scenario;
    this.scale = scale;
    this.speed = scale;
    this.stallAfter = stallAfter;
    DaemonSet ds = scenario.daemonSets().get(0);
    this.namespace = ds.getMetadata().getNamespace();
    this.name = ds.getMetadata().getName();
  }

  /** Starts the API server (on {@code apiPort}, 0 = any), the simulator, operator and /metrics. */
  void start(int apiPort, int metricsPort) throws IOException {
    api = new EmbeddedApiServer(clock, java.nio.file.Path.of("crd")).start(apiPort);
    kubectl = new KubectlTable(api.url());
    OperatorSettings settings =
        new OperatorSettings(Set.of(), stallAfter, Duration.ofHours(24), metricsPort, false, null);
    operator =
        StallwatchOperator.start(
            api.newClient(),
            settings,
            registry,
            new StallwatchOperator.Timing(clock, d -> d.dividedBy(speed), Duration.ofSeconds(5)));
    http = HealthEndpoint.start(metricsPort, registry, operator::ready);
    out.printf("stallwatch demo: %s%n  %s%n", scenario.name(), scenario.story());
    out.printf(
        "  embedded API server %s; simulated time runs up to %dx; stall-after %s (simulated)%n%n",
        api.url(), scale, Durations.compact(stallAfter));
    out.flush();
    // Everything is up and warm: only now does simulated time begin.
    SimClock simClock = clock.begin();
    sim = SimulatedCluster.install(api.client(), scenario, simClock);
    driver = new Thread(() -> drive(simClock), "stallwatch-demo-clock");
    driver.setDaemon(true);
    driver.start();
  }

  /**
   * From now on simulated time runs at real speed: after the story, a served cluster must age as a
   * real one, or a pod looks 40 minutes old to kubectl while the operator's stall began a second
   * ago ({@code stallwatch wait --stall-after 30s} would never see it).
   */
  void realSpeed() {
    speed = 1;
  }

  int metricsPort() {
    return http.port();
  }

  EmbeddedApiServer api() {
    return api;
  }

  /** Waits for the first rollout to settle and shows the DaemonSet. */
  boolean showInitialRollout(Duration limit) {
    boolean settled =
        waitFor(
            () -> {
              DaemonSet ds = daemonSet();
              return ds != null
                  && ds.getStatus() != null
                  && ds.getStatus().getDesiredNumberScheduled() != null
                  && ds.getStatus().getDesiredNumberScheduled() > 0
                  && ds.getStatus()
                      .getDesiredNumberScheduled()
                      .equals(ds.getStatus().getNumberReady());
            },
            limit);
    step("the DaemonSet runs on every node");
    showDaemonSet();
    return settled;
  }

  /** Waits until the operator records a stall, or the rollout completes without one. */
  Optional<RolloutStall> waitForStallOrCompletion(Duration limit) {
    Duration lastEvent =
        scenario.events().stream()
            .map(Scenario.Event::at)
            .max(Duration::compareTo)
            .orElse(Duration.ZERO);
    waitFor(
        () ->
            activeStall().isPresent()
                || (sim.elapsed().compareTo(lastEvent.plus(stallAfter).plus(stallAfter)) > 0
                    && verdict().phase() == Phase.Complete),
        limit);
    return activeStall();
  }

  void showStall() {
    step("the rollout stopped; stallwatch recorded it");
    showDaemonSet();
    out.println();
    out.println("Generation split (what stallwatch status/diagnose prints):");
    TableReport.lines(clock.instant(), List.of(verdict())).forEach(l -> out.println("  " + l));
    out.println();
    showStalls();
    showMetric();
    showEvents(EventReason.STALLED.reason());
  }

  /** Rolls back like {@code kubectl rollout undo} and waits for the stall to be Resolved. */
  boolean rollBackAndShowResolution(Duration limit) {
    out.println();
    step("roll back, as the stall advises, so every node converges on one spec");
    out.printf("$ kubectl rollout undo daemonset/%s -n %s%n", name, namespace);
    out.flush();
    sim.rollback(namespace, name);
    boolean resolved =
        waitFor(
            () ->
                activeStall().isEmpty()
                    && stalls().stream()
                        .anyMatch(s -> s.getStatus() != null && !s.getStatus().active()),
            limit);
    waitFor(() -> verdict().phase() == Phase.Complete, limit);
    step(resolved ? "the stall is Resolved" : "the stall did not resolve in time");
    showStalls();
    showMetric();
    showEvents(EventReason.RESOLVED.reason());
    showDaemonSet();
    return resolved;
  }

  void showCompletion() {
    step("the rollout completed on every node: no RolloutStall");
    showDaemonSet();
    showStalls();
  }

  private void step(String what) {
    printScenarioEvents();
    out.printf("%n[%s] %s%n", Durations.clock(sim.elapsed()), what);
    out.flush();
  }

  private void printScenarioEvents() {
    List<Scenario.Event> events = scenario.events();
    while (eventsShown < events.size()
        && events.get(eventsShown).at().compareTo(sim.elapsed()) <= 0) {
      Scenario.Event e = events.get(eventsShown++);
      out.printf("%n[%s] scenario: %s%n", Durations.clock(e.at()), e.description());
    }
  }

  private void showDaemonSet() {
    out.printf("$ kubectl get ds -n %s%n", namespace);
    kubectl
        .get("/apis/apps/v1/namespaces/" + namespace + "/daemonsets", false)
        .forEach(out::println);
    out.flush();
  }

  private void showStalls() {
    out.println("$ kubectl get rolloutstalls -A");
    kubectl
        .get("/apis/" + RolloutStall.GROUP + "/" + RolloutStall.VERSION + "/rolloutstalls", true)
        .forEach(out::println);
    out.flush();
  }

  private void showMetric() {
    String url = "http://127.0.0.1:" + http.port() + "/metrics";
    out.printf("$ curl -s %s | grep '^stallwatch_rollout_stalled{'%n", url);
    List<String> lines =
        scrape(url).lines().filter(l -> l.startsWith("stallwatch_rollout_stalled{")).toList();
    if (lines.isEmpty()) {
      out.println("(no series: nothing is stalled)");
    } else {
      lines.forEach(out::println);
    }
    out.flush();
  }

  private void showEvents(String reason) {
    out.printf("$ kubectl get events -n %s --field-selector reason=%s%n", namespace, reason);
    waitFor(() -> !events(reason).isEmpty(), Duration.ofSeconds(5));
    for (Event e : events(reason)) {
      out.printf(
          "%s   %s   daemonset/%s   %s%n",
          e.getType(), e.getReason(), e.getInvolvedObject().getName(), e.getMessage());
    }
    out.flush();
  }

  private List<Event> events(String reason) {
    return api.client().v1().events().inNamespace(namespace).list().getItems().stream()
        .filter(e -> reason.equals(e.getReason()))
        .toList();
  }

  private String scrape(String url) {
    try {
      return HttpClient.newHttpClient()
          .send(
              HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString())
          .body();
    } catch (IOException e) {
      return "";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "";
    }
  }

  private DaemonSet daemonSet() {
    return api.client().apps().daemonSets().inNamespace(namespace).withName(name).get();
  }

  private List<RolloutStall> stalls() {
    return api.client().resources(RolloutStall.class).inNamespace(namespace).list().getItems();
  }

  private Optional<RolloutStall> activeStall() {
    return stalls().stream()
        .filter(s -> s.getStatus() != null && s.getStatus().active())
        .findFirst();
  }

  private RolloutVerdict verdict() {
    KubernetesClient c = api.client();
    return RolloutAnalyzer.analyze(
        Snapshots.of(
            daemonSet(),
            c.pods().inNamespace(namespace).list().getItems(),
            c.nodes().list().getItems(),
            c.apps().controllerRevisions().inNamespace(namespace).list().getItems()),
        clock.instant(),
        new AnalyzerSettings(stallAfter));
  }

  private boolean waitFor(BooleanSupplier condition, Duration limit) {
    long deadline = System.nanoTime() + limit.toNanos();
    while (System.nanoTime() < deadline) {
      if (condition.getAsBoolean()) {
        return true;
      }
      printScenarioEvents();
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return condition.getAsBoolean();
  }

  /**
   * Moves simulated time one step per pace and lets the simulator act on it. A tick finishes before
   * time moves on, so a busy machine slows the story down instead of skipping parts of it.
   */
  private void drive(SimClock simClock) {
    while (!Thread.currentThread().isInterrupted()) {
      try {
        sim.tick();
        Thread.sleep(Math.max(1, STEP.toMillis() / speed));
        simClock.advance(STEP);
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException e) {
        // The API server is closing, or one write raced another: the next tick retries.
        if (Thread.currentThread().isInterrupted()) {
          return;
        }
      }
    }
  }

  @Override
  public void close() {
    if (driver != null) {
      driver.interrupt();
    }
    if (sim != null) {
      sim.close();
    }
    if (http != null) {
      http.close();
    }
    if (operator != null) {
      operator.close();
    }
    if (api != null) {
      api.close();
    }
  }
}
