#!/usr/bin/env bash
# reproduce.sh — re-runs the benchmarks and evaluations that fit a 2-core
# machine in minutes, rewrites the data files of docs/bench and renders the
# figures again:
#
#   bash examples/benchplot/reproduce.sh           # sizes up to 100k, quality and chat sets
#   bash examples/benchplot/reproduce.sh -quick    # sizes up to 10k (no 100k index to build)
#   bash examples/benchplot/reproduce.sh -only quality,chat,memory,postgres,scale
#
# Parts: quality (examples/eval on AGROFIT, IRPF and FaQuAD, with the
# PostgreSQL anchors), chat (examples/eval -chat on every chat set), memory
# (SearchCatalog and the exact vector top-10 in the memory store), postgres
# (SearchCatalog through PostgreSQL with the full-text and seed-SQL anchors)
# and scale (the synthetic catalog of the 1M benchmark at 10k and 100k).
# Rows of docs/bench/latency.csv that no part re-measures (1M, the seeds'
# SQL at 100k, chromem-go) keep their recorded figures and commands.
#
# PostgreSQL: HYBRIDRAG_TEST_DATABASE_URL, or a cluster of this run's own
# started with .ci/postgres.sh (and stopped at the end). The public data
# sets are read from ../shared/data (HYBRIDRAG_DATA overrides it).
set -euo pipefail
cd "$(dirname "$0")/../.."

quick=0
only=quality,chat,memory,postgres,scale
while [ $# -gt 0 ]; do
  case "$1" in
    -quick) quick=1 ;;
    -only) only=$2; shift ;;
    *) echo "usage: $0 [-quick] [-only quality,chat,memory,postgres,scale]" >&2; exit 2 ;;
  esac
  shift
done
part() { [[ ",$only," == *",$1,"* ]]; }

data=${HYBRIDRAG_DATA:-../shared/data}
out=$(mktemp -d "${TMPDIR:-/tmp}/benchplot.XXXXXX")
started=$(date +%s)
# The load average when the run starts: other work on the machine shows in
# the latencies, so the data files say how busy it was.
load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)
cleanup=("rm -rf '$out'")
trap 'for c in "${cleanup[@]}"; do eval "$c" || true; done' EXIT

if [ -z "${HYBRIDRAG_TEST_DATABASE_URL:-}" ] && { part quality || part postgres || part scale; }; then
  HYBRIDRAG_PGDATA=$(mktemp -d "${TMPDIR:-/tmp}/benchplot-pg.XXXXXX")
  export HYBRIDRAG_PGDATA HYBRIDRAG_PGPORT=auto
  cleanup=("bash .ci/postgres.sh stop; rm -rf '$HYBRIDRAG_PGDATA'" "${cleanup[@]}")
  HYBRIDRAG_TEST_DATABASE_URL=$(HYBRIDRAG_PG_FRESH=1 bash .ci/postgres.sh start | tail -n 1)
fi
export HYBRIDRAG_TEST_DATABASE_URL=${HYBRIDRAG_TEST_DATABASE_URL:-}
large=""
envl=()
[ "$quick" = 1 ] || { large=1; envl=(env HYBRIDRAG_BENCH_LARGE=1); }

# step FILE COMMAND...: runs COMMAND with its output in FILE, and writes
# the command as one would type it in FILE.cmd, for the data files: the
# database URL as $DSN, the data directory as ../shared/data, arguments
# quoted where the shell needs it.
step() {
  local file=$1; shift
  local a shown=()
  for a in "$@"; do
    a=${a/#"$data"/../shared/data}
    if [ -n "$HYBRIDRAG_TEST_DATABASE_URL" ] && [ "$a" = "$HYBRIDRAG_TEST_DATABASE_URL" ]; then shown+=('"$DSN"')
    elif [ "$a" = "$out/eval" ]; then shown+=(go run ./examples/eval)
    elif [ "${#shown[@]}" = 0 ] && [ "$a" = env ]; then continue
    elif [[ $a =~ ^[A-Za-z0-9_./=:,@%+-]+$ ]]; then shown+=("$a")
    else shown+=("'${a//\'/\'\\\'\'}'"); fi
  done
  local cmd="${shown[*]}"
  if [[ "$cmd" == *Postgres* || "$cmd" == *storage/postgres* ]]; then
    cmd="HYBRIDRAG_TEST_DATABASE_URL=\"\$DSN\" $cmd"
  fi
  echo "== $cmd" >&2
  echo "$cmd" >"$file.cmd"
  "$@" >"$file"
  grep -h '^Benchmark' "$file" >&2 || true
}

go build -o "$out/eval" ./examples/eval
args=()
if part quality; then
  anchors=(-mode all -anchors all -anchor-db "$HYBRIDRAG_TEST_DATABASE_URL" -latency=false -json)
  step "$out/agrofit.json" "$out/eval" -catalog "$data/agrofit/catalog.jsonl" -queries testdata/eval/agrofit_queries.jsonl -qrels testdata/eval/agrofit_qrels.tsv.gz "${anchors[@]}"
  step "$out/irpf.json" "$out/eval" -faqs "$data/br_taxqa/faqs.jsonl" -queries testdata/eval/irpf_queries.jsonl -qrels testdata/eval/irpf_qrels.tsv "${anchors[@]}"
  step "$out/faquad.json" "$out/eval" -docs "$data/faquad/documents.jsonl" -queries "$data/faquad/queries.jsonl" -qrels "$data/faquad/qrels.tsv" "${anchors[@]}"
  args+=(-quality "agrofit=$out/agrofit.json" -quality "irpf=$out/irpf.json" -quality "faquad=$out/faquad.json")
fi
if part chat; then
  step "$out/chat.json" "$out/eval" -chat testdata/chat_eval.jsonl -json
  step "$out/chat_fresh.json" "$out/eval" -chat testdata/chat_eval_fresh.jsonl -json
  step "$out/chat_blind.json" "$out/eval" -chat testdata/chat_eval_blind.jsonl -json
  step "$out/chat_blind2.json" "$out/eval" -chat testdata/chat_eval_blind2.jsonl -json
  step "$out/chat_dev4.json" "$out/eval" -chat testdata/chat_eval_dev4.jsonl -json
  for n in 5 6 7 8 9 10; do
    step "$out/chat_blind$n.json" "$out/eval" -chat testdata/chat_eval_blind$n.jsonl -json
  done
  args+=(-chat "chat_eval=$out/chat.json" -chat "chat_eval_fresh=$out/chat_fresh.json" -chat "chat_eval_blind=$out/chat_blind.json" -chat "chat_eval_blind2=$out/chat_blind2.json")
  args+=(-chat "chat_eval_dev4=$out/chat_dev4.json")
  for n in 5 6 7 8 9 10; do args+=(-chat "chat_eval_blind$n=$out/chat_blind$n.json"); done
fi
sizes='(1k|agrofit4220|10k)'; pgsizes='(agrofit4220|10k)'; scale=10000
[ -n "$large" ] && sizes='(1k|agrofit4220|10k|100k)' && scale=10000,100000
if part memory; then
  step "$out/memory.txt" "${envl[@]}" go test -run '^$' -bench "BenchmarkSearchCatalog/memory-$sizes\$" -benchtime 300x -timeout 30m ./rag
  step "$out/vector.txt" go test -run '^$' -bench 'BenchmarkSearchChunks$' ./storage/memory
  args+=(-bench "$out/memory.txt" -bench "$out/vector.txt")
fi
if part postgres; then
  step "$out/postgres.txt" go test -run '^$' -bench "BenchmarkPostgresCatalog/$pgsizes/(searchcatalog-hnsw|anchor-)" -benchtime 50x -timeout 60m ./rag
  args+=(-bench "$out/postgres.txt")
  if [ -n "$large" ]; then
    # The seeds' SQL takes 13-20 s a query at 100k: its recorded figure stays.
    step "$out/postgres100k.txt" env HYBRIDRAG_BENCH_LARGE=1 go test -run '^$' -bench 'BenchmarkPostgresCatalog/100k/(searchcatalog-hnsw|anchor-ts_rank)' -benchtime 50x -timeout 60m ./rag
    args+=(-bench "$out/postgres100k.txt")
  fi
fi
if part scale; then
  step "$out/scale.txt" env HYBRIDRAG_BENCH_SIZES=$scale go test ./storage/postgres -run '^$' -bench BenchmarkSearchCatalogScale -benchtime 200x -timeout 60m
  args+=(-bench "$out/scale.txt")
fi

go run ./examples/benchplot record -dir docs/bench \
  -source "examples/benchplot/reproduce.sh$([ "$quick" = 1 ] && echo ' -quick') at $(git describe --always --dirty), load average $load" "${args[@]}"
go run ./examples/benchplot render -dir docs/bench
echo "reproduce.sh: done in $(( $(date +%s) - started )) s; see git diff docs/bench" >&2
