#!/usr/bin/env bash
# Compiles the JMH benchmarks (src/jmh/java, profile `bench`) and runs them; arguments go to JMH.
#   src/jmh/bench.sh                              # everything (several minutes)
#   src/jmh/bench.sh AnalyzerBenchmark -p nodes=5000 -f 1 -wi 2 -i 3
#   src/jmh/bench.sh AnalyzerBenchmark -prof jfr  # a JFR recording per benchmark
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
./mvnw -B -q -Pbench -DskipTests -Dspotless.check.skip=true test-compile
exec java -cp "target/jmh-classes:target/test-classes:target/classes:$(cat target/bench.classpath)" \
  org.openjdk.jmh.Main "$@"
