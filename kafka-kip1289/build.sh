#!/usr/bin/env bash
# build.sh builds Apache Kafka with KIP-1289 into OUT (the patched image's
# build context uses it):
#
#   OUT/libs/          the broker's release jars from Maven Central, untouched
#   OUT/kip1289.jar    the few Kafka classes kafka.patch hooks, recompiled, and
#                      our classes; goes first on the broker's classpath
#
#   kafka-kip1289/build.sh VERSION OUT
#
# No Kafka source is ever committed here. Kafka stays a dependency fetched at
# build time: Maven copies the release jars, then unpacks from the sources jars
# only the files kafka.patch names; the patch (the hook lines only) is applied
# to those, Kafka's own message generator turns messages/*.json into our
# message classes, and javac and scalac compile the patched files and ours
# against the release jars. Needs a JDK (javac, jar) and Maven; Maven uses its
# own configured settings.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
version=${1:?usage: build.sh VERSION OUT}
out=${2:?usage: build.sh VERSION OUT}

# Plugin version pinned: the default binding of an old Maven lacks
# `copy -Dartifact` and `unpack` includes.
dep=org.apache.maven.plugins:maven-dependency-plugin:3.8.1
message_package=io.github.sharechaos.kip1289.message

for tool in mvn javac jar patch perl; do
  command -v "$tool" >/dev/null || { echo "kafka-kip1289: $tool is missing (a JDK, Maven and patch are needed)" >&2; exit 1; }
done

work=$(mktemp -d /var/tmp/sharechaos-kip1289.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out" "$work/src" "$work/gen" "$work/classes"

mvn_quiet() {
  mvn -B -q -f "$here/pom.xml" -Dkafka.version="$version" -Dkip1289.build.dir="$work/target" "$@" >"$work/mvn.log" 2>&1 ||
    { tail -30 "$work/mvn.log" >&2; exit 1; }
}

echo "kafka-kip1289: fetching Apache Kafka $version jars, generator and sources with Maven"
mvn_quiet "$dep:copy-dependencies" -DincludeScope=runtime -DoutputDirectory="$out/libs"
mvn_quiet "$dep:copy-dependencies" -DincludeScope=provided -DoutputDirectory="$work/generator"
# scalac of the Scala version the broker runs (the scala-library Kafka's pom names).
scala_jar=$(cd "$out/libs" && ls scala-library-*.jar)
scala_version=${scala_jar#scala-library-}
scala_version=${scala_version%.jar}
mvn_quiet "$dep:copy" -Dartifact="org.scala-lang:scala-compiler:$scala_version" -DoutputDirectory="$work/scalac"

# The patched files, by artifact: kafka.patch's paths are ARTIFACT/PATH.
mapfile -t patched < <(sed -n 's#^+++ b/##p' "$here/kafka.patch")
declare -A includes=()
for f in "${patched[@]}"; do
  artifact=${f%%/*}
  includes[$artifact]+="${includes[$artifact]:+,}${f#*/}"
done
for artifact in "${!includes[@]}"; do
  mvn_quiet "$dep:unpack" -Dartifact="org.apache.kafka:$artifact:$version:jar:sources" \
    -Dmdep.unpack.includes="${includes[$artifact]}" -DoutputDirectory="$work/src/$artifact"
done
for f in "${patched[@]}"; do
  [ -f "$work/src/$f" ] || { echo "kafka-kip1289: $f is not in the $version sources jar" >&2; exit 1; }
done
(cd "$work/src" && patch -p1 --quiet --no-backup-if-mismatch <"$here/kafka.patch")

# Our message classes, by Kafka's generator (its libraries that the broker also
# uses, Jackson and argparse4j, resolve to the broker's copies in libs/). A
# message class hard-codes the apiKey its JSON names; ours come from
# configuration, so apiKey() asks.
java -cp "$work/generator/*:$out/libs/*" org.apache.kafka.message.MessageGenerator \
  -p "$message_package" -o "$work/gen" -i "$here/messages" -m MessageDataGenerator >"$work/gen.log" 2>&1 ||
  { cat "$work/gen.log" >&2; exit 1; }
for m in AddShareAcksToTxn TxnShareAcknowledge; do
  case $m in
    AddShareAcksToTxn) call=addShareAcksToTxn ;;
    TxnShareAcknowledge) call=txnShareAcknowledge ;;
  esac
  for kind in Request Response; do
    f="$work/gen/${m}${kind}Data.java"
    perl -0pi -e "s/(public short apiKey\(\) \{\s*return )\d+;/\${1}io.github.sharechaos.kip1289.protocol.Kip1289ApiKeys.$call();/" "$f"
    grep -q "Kip1289ApiKeys.$call()" "$f" || { echo "kafka-kip1289: could not rewrite apiKey() in $f" >&2; exit 1; }
  done
done

# Java first (the patched kafka-clients files, the generated messages, ours),
# then the patched Scala against them: our Java never refers to a patched Scala
# class, so there is no cycle.
cp="$out/libs/*"
find "$work/gen" "$here/src/main/java" "$work/src" -name '*.java' >"$work/java.txt"
javac -nowarn -encoding UTF-8 --release 17 -proc:none -cp "$cp" -d "$work/classes" @"$work/java.txt" 2>"$work/javac.log" ||
  { cat "$work/javac.log" >&2; exit 1; }
find "$work/src" -name '*.scala' >"$work/scala.txt"
if [ -s "$work/scala.txt" ]; then
  java -cp "$work/scalac/*:$cp" scala.tools.nsc.Main -nowarn -release 17 -encoding UTF-8 \
    -classpath "$work/classes:$cp" -d "$work/classes" @"$work/scala.txt" >"$work/scalac.log" 2>&1 ||
    { cat "$work/scalac.log" >&2; exit 1; }
fi
# Our checks that need no broker (src/test): a failed one fails the build.
mkdir -p "$work/test-classes"
find "$here/src/test/java" -name '*.java' >"$work/test.txt"
javac -nowarn -encoding UTF-8 --release 17 -proc:none -cp "$work/classes:$cp" -d "$work/test-classes" @"$work/test.txt" 2>"$work/javac-test.log" ||
  { cat "$work/javac-test.log" >&2; exit 1; }
for check in $(cd "$work/test-classes" && find . -name '*Check.class' | sed 's#^\./##; s#\.class$##; s#/#.#g'); do
  java -cp "$work/test-classes:$work/classes:$cp" "$check" || { echo "kafka-kip1289: $check failed" >&2; exit 1; }
done
rm -f "$out/kip1289.jar"
jar --create --file "$out/kip1289.jar" -C "$work/classes" .
echo "kafka-kip1289: built kip1289.jar ($(jar --list --file "$out/kip1289.jar" | grep -c '\.class$') classes) for Kafka $version"
