#!/bin/sh
# Joins and subset maintenance (benchmarks/join_bench.cpp, issue 4).
#
#   scripts/bench_join.sh [BUILD_DIR] [PARTS]
#
# 1. configures and builds join_bench in BUILD_DIR (default: build-bench-join), Release
#    -O2 (with -g, which does not change the code, for callgrind_annotate's file names);
# 2. starts an odm test server (tests/server/ctl.sh) in a temporary directory, stopped on
#    exit, or uses $MONGODB_URI when it is set (a real mongod);
# 3. inserts the data (database odm_join_bench: 100 publishers, 10,000 books, PARTS parts
#    and their product; PARTS defaults to 2,000 against the test server, whose $in costs
#    parts x ids, and 100,000 against $MONGODB_URI), then prints the commands each operation
#    sends (command monitoring);
# 4. runs the Google Benchmark program (CPU time of the calling thread = client side);
# 5. runs every case under `valgrind --tool=callgrind --collect-atstart=no`: join_bench
#    switches collection on around the measured code only, so the total divided by the
#    iterations is the client-side instructions per operation;
# 6. prints the table: whole resolve, decoding the fetched documents alone, the join's own
#    work (gathering, in_filters, sharing, assigning), the rest (libmongoc, cursor), and the
#    ratio join-work / decoding (the issue's target: < 1); for the books, also decoding the
#    10,000 books themselves, which the same operation fetches; then the join's steps. The
#    orders row is a path through embedded documents: 1,000 orders x 5 line items ->
#    200 products, odm::with(&Order::items, odm::with(&LineItem::product)).
#
# The profiles stay in BUILD_DIR/callgrind/CASE.out, for e.g.
#   callgrind_annotate --inclusive=yes BUILD_DIR/callgrind/resolve_books.out
# Set BENCH_JOIN_SKIP_BUILD=1 to reuse a build, BENCH_JOIN_SKIP_TIMING=1 to skip step 4.
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build-bench-join}
if [ -n "${MONGODB_URI:-}" ]; then parts=${2:-100000}; else parts=${2:-2000}; fi

command -v valgrind >/dev/null 2>&1 || { echo "bench_join.sh: valgrind is not installed" >&2; exit 1; }

if [ "${BENCH_JOIN_SKIP_BUILD:-0}" != 1 ]; then
  cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O2 -g -DNDEBUG" \
    -DODM_BUILD_TESTS=OFF -DODM_BUILD_EXAMPLES=OFF -DODM_BUILD_BENCHMARKS=ON >/dev/null
  cmake --build "$build" --target join_bench -j2
fi
bin=$build/benchmarks/join_bench
[ -x "$bin" ] || { echo "bench_join.sh: $bin was not built" >&2; exit 1; }

if [ -n "${MONGODB_URI:-}" ]; then
  uri=$MONGODB_URI
else
  server_dir=$(mktemp -d /tmp/odm-bench-join-server.XXXXXX)
  trap '"$src/tests/server/ctl.sh" stop "$server_dir" >/dev/null 2>&1; rm -rf "$server_dir"' EXIT
  trap 'exit 130' INT TERM
  "$src/tests/server/ctl.sh" start "$server_dir" >/dev/null
  uri=$(cat "$server_dir/uri")
fi
# libmongoc's DEBUG lines (the test server answers heartbeats late while it is busy) are
# dropped from the program's output.
run() { "$bin" --uri="$uri" --parts="$parts" "$@" 2>&1 | grep -v ' DEBUG: ' || true; }

echo "== data (database odm_join_bench, $parts parts on the server) =="
run --setup
echo
echo "== commands sent per operation (on_command_started) =="
queries=$build/join_bench_queries.txt
run --report-queries | tee "$queries"
grep -q '^queries subset_add' "$queries" || { echo "bench_join.sh: --report-queries failed" >&2; exit 1; }
echo

timings=$build/join_bench_timings.csv
if [ "${BENCH_JOIN_SKIP_TIMING:-0}" != 1 ]; then
  echo "== Google Benchmark (cpu = the client's thread; real includes the server) =="
  # Debian bookworm's Google Benchmark 1.7.1 takes the minimum time as plain seconds.
  "$bin" --uri="$uri" --parts="$parts" --benchmark_min_time=0.5 \
    --benchmark_out="$timings" --benchmark_out_format=csv 2>&1 | grep -v ' DEBUG: '
  echo
else
  : >"$timings"
fi

# Microseconds per operation (column 3: real, 4: cpu) of BM_<case>, or "-".
us_per_op() {
  awk -F, -v name="\"BM_$1" -v col="$2" '
    (index($1, name "\"") == 1 || index($1, name "/") == 1) && !found { printf "%.0f", $col; found = 1 }
    END { if (!found) printf "-" }' "$timings"
}
mkdir -p "$build/callgrind"
# Instructions per operation of `case` over `n` iterations (collection around the
# measured code only).
per_op() {
  out=$build/callgrind/$1.out
  valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file="$out" \
    "$bin" --uri="$uri" --parts="$parts" --callgrind-case="$1" --iterations="$2" \
    >"$build/callgrind/$1.log" 2>&1 || { grep -v ' DEBUG: ' "$build/callgrind/$1.log" >&2; exit 1; }
  awk -v n="$2" '/^summary:/ { printf "%.0f", $2 / n }' "$out"
}
# Inclusive instructions per operation of the function whose name contains `pattern`
# in profile `case` (the largest file:function line: the function's own entry).
inclusive() {
  callgrind_annotate --inclusive=yes --threshold=100 "$build/callgrind/$1.out" 2>/dev/null |
    awk -v pat="$2" -v n="$3" 'index($0, pat) { gsub(",", "", $1); if ($1 + 0 > best) best = $1 + 0 }
      END { printf "%.0f", best / n }'
}
ratio() {
  awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b == 0) print "-"; else printf "%.2f", a / b }'
}
diff3() {
  awk -v a="$1" -v b="$2" -v c="$3" 'BEGIN { printf "%.0f", a - b - c }'
}

echo "== callgrind: client-side instructions per operation =="
resolve_books=$(per_op resolve_books 5)
decode_books=$(per_op decode_books 5)
decode_publishers=$(per_op decode_publishers 50)
join_books=$(per_op join_work_books 5)
resolve_parts=$(per_op resolve_parts 2)
decode_parts=$(per_op decode_parts 10)
join_parts=$(per_op join_work_parts 10)
decode_100k=$(per_op decode_parts_100k 1)
join_100k=$(per_op join_work_parts_100k 1)
resolve_orders=$(per_op resolve_orders 5)
decode_orders=$(per_op decode_orders 5)
decode_order_products=$(per_op decode_order_products 50)
join_orders=$(per_op join_work_orders 5)
subset_add=$(per_op subset_add 200)
query_client_books=$(per_op query_client_books 2)
query_server_books=$(per_op query_server_books 2)
query_client_orders=$(per_op query_client_orders 3)
query_server_orders=$(per_op query_server_orders 3)
lookup_join_orders=$(per_op lookup_join_work_orders 5)
# Cross-check inside the whole resolve: decoding as the cursor does it.
in_resolve_books=$(inclusive resolve_books 'from_bson<(anonymous namespace)::Publisher>' 5)
in_resolve_parts=$(inclusive resolve_parts 'from_bson<(anonymous namespace)::Part>' 2)

q_books=$(awk -F': ' '/^queries resolve_books/ { print $2 }' "$queries")
q_parts=$(awk -F': ' '/^queries resolve_parts [0-9]+-ids: / { print $2 }' "$queries")
q_100k=$(awk -F': ' '/client only/ { print $2 }' "$queries")
q_subset=$(awk -F': ' '/^queries subset_add/ { print $2 }' "$queries")
q_orders=$(awk -F': ' '/^queries resolve_orders/ { print $2 }' "$queries")

table=$(
  printf '%-26s %-20s %12s %12s %12s %12s %8s\n' operation commands "whole Ir" "decode Ir" "join Ir" "rest Ir" "join/dec"
  printf '%-26s %-20s %12s %12s %12s %12s %8s\n' "books: 10000 -> 100 pubs" "$q_books" "$resolve_books" "$decode_publishers" \
    "$join_books" "$(diff3 "$resolve_books" "$decode_publishers" "$join_books")" "$(ratio "$join_books" "$decode_publishers")"
  printf '%-26s %-20s %12s %12s %12s %12s %8s\n' "parts: $parts ids" "$q_parts" "$resolve_parts" "$decode_parts" \
    "$join_parts" "$(diff3 "$resolve_parts" "$decode_parts" "$join_parts")" "$(ratio "$join_parts" "$decode_parts")"
  printf '%-26s %-20s %12s %12s %12s %12s %8s\n' "parts: 100000 ids (client)" "$q_100k" "-" "$decode_100k" "$join_100k" "-" \
    "$(ratio "$join_100k" "$decode_100k")"
  printf '%-26s %-20s %12s %12s %12s %12s %8s\n' "orders: 1000x5 -> 200" "$q_orders" "$resolve_orders" \
    "$decode_order_products" "$join_orders" "$(diff3 "$resolve_orders" "$decode_order_products" "$join_orders")" \
    "$(ratio "$join_orders" "$decode_order_products")"
  printf '%-26s %-20s %12s\n' "subset add (per add)" "$q_subset" "$subset_add"
  echo
  books_and_publishers=$(awk -v a="$decode_books" -v b="$decode_publishers" 'BEGIN { printf "%.0f", a + b }')
  echo "books: decoding every document the operation fetches (the books, then their publishers):" \
    "$decode_books + $decode_publishers = $books_and_publishers Ir; join/that = $(ratio "$join_books" "$books_and_publishers")"
  orders_and_products=$(awk -v a="$decode_orders" -v b="$decode_order_products" 'BEGIN { printf "%.0f", a + b }')
  echo "orders: decoding every document the operation fetches (the orders, then their products):" \
    "$decode_orders + $decode_order_products = $orders_and_products Ir; join/that = $(ratio "$join_orders" "$orders_and_products")"
  echo "books: the join's own work per reference: $(awk -v j="$join_books" 'BEGIN { printf "%.0f", j / 10000 }') Ir" \
    "(decoding the 100 publishers amounts to $(awk -v d="$decode_publishers" 'BEGIN { printf "%.1f", d / 10000 }') Ir per reference)"
  echo
  printf '%-26s %12s %12s %12s %12s %8s\n' "Google Benchmark, us/op" "whole cpu" "whole real" "decode cpu" "join cpu" "join/dec"
  for w in books parts parts_100k orders; do
    case $w in
      orders) r=resolve_orders d=decode_order_products j=join_work_orders ;;
      books) r=resolve_books d=decode_publishers j=join_work_books ;;
      parts) r=resolve_parts d=decode_parts j=join_work_parts ;;
      parts_100k) r=none d=decode_parts_100k j=join_work_parts_100k ;;
    esac
    dc=$(us_per_op "$d" 4)
    jc=$(us_per_op "$j" 4)
    printf '%-26s %12s %12s %12s %12s %8s\n' "$w" "$(us_per_op "$r" 4)" "$(us_per_op "$r" 3)" "$dc" "$jc" "$(ratio "$jc" "$dc")"
  done
  printf '%-26s %12s %12s\n' "subset_add" "$(us_per_op subset_add 4)" "$(us_per_op subset_add 3)"
  printf '%-26s %12s %12s %12s %12s %8s\n' "books, with the books" "-" "-" "$(us_per_op decode_books 4)" \
    "$(us_per_op join_work_books 4)" "$(ratio "$(us_per_op join_work_books 4)" "$(us_per_op decode_books 4)")"
  echo
  echo "decoding inside the whole resolve (callgrind inclusive of odm::from_bson<Target>, Ir/op):" \
    "books $in_resolve_books, parts $in_resolve_parts"
  echo
  printf '%-26s %12s %12s %12s %12s\n' "join steps, Ir/op" gather in_filters share assign
  for c in join_work_books:5 join_work_parts:10 join_work_parts_100k:1 join_work_orders:5; do
    name=${c%:*} n=${c#*:}
    printf '%-26s %12s %12s %12s %12s\n' "$name" "$(inclusive "$name" step_gather "$n")" \
      "$(inclusive "$name" step_in_filters "$n")" "$(inclusive "$name" step_share "$n")" "$(inclusive "$name" step_assign "$n")"
  done
)
echo "$table"
echo
# Server-side joins (issue 13 item 4): the whole odm::find_joined, client side against $lookup.
lookup_own=$(awk -v a="$lookup_join_orders" -v b="$decode_order_products" 'BEGIN { printf "%.0f", a - b }')
q_cb=$(awk -F': ' '/^queries query_client_books/ { print $2 }' "$queries")
q_sb=$(awk -F': ' '/^queries query_server_books/ { print $2 }' "$queries")
q_co=$(awk -F': ' '/^queries query_client_orders/ { print $2 }' "$queries")
q_so=$(awk -F': ' '/^queries query_server_orders/ { print $2 }' "$queries")
printf '%-26s %-24s %12s %-24s %12s %8s\n' "find_joined, Ir/op" "client: commands" "client Ir" "server: commands" \
  "server Ir" "srv/cli"
printf '%-26s %-24s %12s %-24s %12s %8s\n' "books: 10000 -> 100 pubs" "$q_cb" "$query_client_books" "$q_sb" \
  "$query_server_books" "$(ratio "$query_server_books" "$query_client_books")"
printf '%-26s %-24s %12s %-24s %12s %8s\n' "orders: 1000x5 -> 200" "$q_co" "$query_client_orders" "$q_so" \
  "$query_server_orders" "$(ratio "$query_server_orders" "$query_client_orders")"
grep '^bytes ' "$queries"
echo "orders, \$lookup form after the aggregate: $lookup_join_orders Ir/op, of which decoding the 200 products" \
  "$decode_order_products: the join's own work $lookup_own Ir/op, join/decode of the fetched products" \
  "$(ratio "$lookup_own" "$decode_order_products"), join/decode of every fetched document (orders too)" \
  "$(ratio "$lookup_own" "$(awk -v a="$decode_orders" -v b="$decode_order_products" 'BEGIN { printf "%.0f", a + b }')")"
echo
echo "whole = odm::resolve; decode = from_bson of the same fetched documents; join = gathering, de-duplicating,"
echo "in_filters, sharing and assigning (join_work_*); rest = whole - decode - join (libmongoc, cursor, network)."
echo "orders: the join's work includes collecting the 5,000 embedded line items: $(inclusive join_work_orders step_look_inside 5) Ir/op."
