// The client's cost of a typed aggregation pipeline against the same pipeline written by
// hand with libbson (issue 12: "a typed pipeline costs the client no more than the same
// hand-written BSON pipeline"), measured by scripts/bench_pipeline.sh.
//
// The pipeline is the report per currency of examples/currency_report.cpp:
//   [{$match: {status: "paid"}},
//    {$group: {_id: {customer: "$customer", currency: "$total.currency"},
//              total: {$sum: {$ifNull: ["$total.value", NumberDecimal("0")]}}, orders: {$sum: 1}}},
//    {$sort: {"_id.customer": 1, "_id.currency": 1}}, {$limit: 100}]
// Cases:
//   build_pipeline_odm / _handwritten    build that array (odm's typed builder; libbson
//                                        appends into a bson_t on the stack)
//   decode_results_odm / _handwritten    read 100 result documents into the result struct
//                                        (odm's codec, as Cursor<Spent> does; bson_iter
//                                        by hand, the Decimal128 through odm's Decimal
//                                        codec, since both need the same odm::Decimal)
// --callgrind-case=NAME --iterations=N runs one case N times (callgrind_mode.hpp).

#include "callgrind_mode.hpp"

#include <odm/aggregation/pipeline.hpp>
#include <odm/odm.hpp>

#include <benchmark/benchmark.h>
#include <bson/bson.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace bench {

struct Customer {
  std::string id;
  std::string name;
};
struct Order {
  std::int32_t id = 0;
  odm::Ref<Customer> customer;
  std::string status;
  odm::Money total;
};
struct CustomerCurrency {
  std::string customer;
  std::string currency;
};
struct Spent {
  CustomerCurrency id;
  odm::Decimal total;
  std::int64_t orders = 0;
};

}  // namespace bench

namespace {

using namespace bench;

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "pipeline_bench: %s\n", what);
  std::exit(1);
}

odm::Pipeline<Order, Spent> typed_pipeline() {
  namespace agg = odm::agg;
  return odm::pipeline<Order>()
      .match(odm::field(&Order::status) == "paid")
      .group<Spent>(agg::by(agg::key<&CustomerCurrency::customer>(odm::field(&Order::customer)),
                            agg::key<&CustomerCurrency::currency>(agg::currency(odm::field(&Order::total)))),
                    agg::sum<&Spent::total>(odm::field(&Order::total)), agg::count<&Spent::orders>())
      .sort(odm::sort(odm::asc(odm::field(&Spent::id) / &CustomerCurrency::customer),
                      odm::asc(odm::field(&Spent::id) / &CustomerCurrency::currency)))
      .limit(100);
}

/// The same array with libbson's appends, as careful hand-written code does it.
void handwritten_pipeline(bson_t* pipeline) {
  bson_t stage, body, key, acc, value, arguments;
  bool ok = true;
  ok = ok && BSON_APPEND_DOCUMENT_BEGIN(pipeline, "0", &stage);
  ok = ok && BSON_APPEND_DOCUMENT_BEGIN(&stage, "$match", &body);
  ok = ok && BSON_APPEND_UTF8(&body, "status", "paid");
  ok = ok && bson_append_document_end(&stage, &body) && bson_append_document_end(pipeline, &stage);

  ok = ok && BSON_APPEND_DOCUMENT_BEGIN(pipeline, "1", &stage);
  ok = ok && BSON_APPEND_DOCUMENT_BEGIN(&stage, "$group", &body);
  ok = ok && BSON_APPEND_DOCUMENT_BEGIN(&body, "_id", &key);
  ok = ok && BSON_APPEND_UTF8(&key, "customer", "$customer");
  ok = ok && BSON_APPEND_UTF8(&key, "currency", "$total.currency");
  ok = ok && bson_append_document_end(&body, &key);
  ok = ok && BSON_APPEND_DOCUMENT_BEGIN(&body, "total", &acc);
  ok = ok && BSON_APPEND_DOCUMENT_BEGIN(&acc, "$sum", &value);
  ok = ok && BSON_APPEND_ARRAY_BEGIN(&value, "$ifNull", &arguments);
  ok = ok && BSON_APPEND_UTF8(&arguments, "0", "$total.value");
  bson_decimal128_t zero;
  zero.high = 0x3040000000000000;  // 0E0
  zero.low = 0;
  ok = ok && BSON_APPEND_DECIMAL128(&arguments, "1", &zero);
  ok = ok && bson_append_array_end(&value, &arguments) && bson_append_document_end(&acc, &value);
  ok = ok && bson_append_document_end(&body, &acc);
  ok = ok && BSON_APPEND_DOCUMENT_BEGIN(&body, "orders", &acc);
  ok = ok && BSON_APPEND_INT32(&acc, "$sum", 1);
  ok = ok && bson_append_document_end(&body, &acc);
  ok = ok && bson_append_document_end(&stage, &body) && bson_append_document_end(pipeline, &stage);

  ok = ok && BSON_APPEND_DOCUMENT_BEGIN(pipeline, "2", &stage);
  ok = ok && BSON_APPEND_DOCUMENT_BEGIN(&stage, "$sort", &body);
  ok = ok && BSON_APPEND_INT32(&body, "_id.customer", 1);
  ok = ok && BSON_APPEND_INT32(&body, "_id.currency", 1);
  ok = ok && bson_append_document_end(&stage, &body) && bson_append_document_end(pipeline, &stage);

  ok = ok && BSON_APPEND_DOCUMENT_BEGIN(pipeline, "3", &stage);
  ok = ok && BSON_APPEND_INT64(&stage, "$limit", 100);
  ok = ok && bson_append_document_end(pipeline, &stage);
  if (!ok) fail("the hand-written pipeline did not fit");
}

/// Reads one result by hand: _id.customer, _id.currency, total, orders.
bool decode_handwritten(const bson_t* document, Spent& out) {
  bson_iter_t it;
  if (!bson_iter_init(&it, document)) return false;
  int seen = 0;
  while (bson_iter_next(&it)) {
    const char* key = bson_iter_key(&it);
    if (std::strcmp(key, "_id") == 0 && BSON_ITER_HOLDS_DOCUMENT(&it)) {
      bson_iter_t child;
      if (!bson_iter_recurse(&it, &child)) return false;
      while (bson_iter_next(&child)) {
        const char* name = bson_iter_key(&child);
        std::uint32_t length = 0;
        if (!BSON_ITER_HOLDS_UTF8(&child)) return false;
        const char* text = bson_iter_utf8(&child, &length);
        if (std::strcmp(name, "customer") == 0)
          out.id.customer.assign(text, length);
        else if (std::strcmp(name, "currency") == 0)
          out.id.currency.assign(text, length);
      }
      ++seen;
    } else if (std::strcmp(key, "total") == 0) {
      odm::codec<odm::Decimal>::decode(it, out.total);
      ++seen;
    } else if (std::strcmp(key, "orders") == 0) {
      if (BSON_ITER_HOLDS_INT64(&it))
        out.orders = bson_iter_int64(&it);
      else if (BSON_ITER_HOLDS_INT32(&it))
        out.orders = bson_iter_int32(&it);
      else
        return false;
      ++seen;
    }
  }
  return seen == 3;
}

struct Inputs {
  /// 100 results as the server sends them (orders as int32, as $sum: 1 gives).
  std::vector<odm::Document> results = [] {
    std::vector<odm::Document> documents;
    for (int i = 0; i < 100; ++i) {
      const std::string json = R"({"_id": {"customer": "customer-)" + std::to_string(i / 3) + R"(", "currency": ")" +
                               (i % 3 == 0 ? "EUR" : i % 3 == 1 ? "USD" : "JPY") +
                               R"("}, "total": {"$numberDecimal": ")" + std::to_string(1000 + i * 37) + "." +
                               std::to_string(10 + i % 90) + R"("}, "orders": )" + std::to_string(1 + i % 17) + "}";
      documents.push_back(odm::Document::from_json(json));
    }
    return documents;
  }();
};

const Inputs& inputs() {
  static const Inputs instance;
  return instance;
}

[[gnu::noinline]] void build_pipeline_odm(const Inputs&) {
  const auto pipeline = typed_pipeline();
  benchmark::DoNotOptimize(pipeline.bson_view().get());  // what aggregate sends
}
[[gnu::noinline]] void build_pipeline_handwritten(const Inputs&) {
  bson_t pipeline;
  bson_init(&pipeline);
  handwritten_pipeline(&pipeline);
  benchmark::DoNotOptimize(&pipeline);
  bson_destroy(&pipeline);
}
[[gnu::noinline]] void decode_results_odm(const Inputs& in) {
  std::vector<Spent> results;
  results.reserve(in.results.size());
  for (const odm::Document& document : in.results) results.push_back(odm::from_bson<Spent>(document.get()));
  benchmark::DoNotOptimize(results.data());
  benchmark::ClobberMemory();
}
[[gnu::noinline]] void decode_results_handwritten(const Inputs& in) {
  std::vector<Spent> results;
  results.reserve(in.results.size());
  for (const odm::Document& document : in.results)
    if (!decode_handwritten(document.get(), results.emplace_back())) fail("a result did not decode");
  benchmark::DoNotOptimize(results.data());
  benchmark::ClobberMemory();
}

constexpr BenchCase<Inputs> cases[] = {
    {"build_pipeline_odm", build_pipeline_odm},
    {"build_pipeline_handwritten", build_pipeline_handwritten},
    {"decode_results_odm", decode_results_odm},
    {"decode_results_handwritten", decode_results_handwritten},
};

/// Both sides do the same work: the same bytes, the same values.
void check_equivalence() {
  const auto typed = typed_pipeline();
  bson_t hand;
  bson_init(&hand);
  handwritten_pipeline(&hand);
  const bool same = hand.len == typed.bson().get()->len &&
                    std::memcmp(bson_get_data(&hand), bson_get_data(typed.bson().get()), hand.len) == 0;
  if (!same) {
    char* text = bson_as_relaxed_extended_json(&hand, nullptr);
    std::fprintf(stderr, "odm:          %s\nhand-written: %s\n", typed.bson().to_json().c_str(), text);
    bson_free(text);
  }
  bson_destroy(&hand);
  if (!same) fail("the typed and the hand-written pipelines differ");
  for (const odm::Document& document : inputs().results) {
    Spent by_hand;
    if (!decode_handwritten(document.get(), by_hand)) fail("a result did not decode by hand");
    const Spent by_odm = odm::from_bson<Spent>(document.get());
    if (by_hand.id.customer != by_odm.id.customer || by_hand.id.currency != by_odm.id.currency ||
        !by_hand.total.same_representation(by_odm.total) || by_hand.orders != by_odm.orders)
      fail("the decoders read different values");
  }
}

}  // namespace

int main(int argc, char** argv) {
  check_equivalence();
  return bench_main(argc, argv, "pipeline_bench", cases, inputs);
}
