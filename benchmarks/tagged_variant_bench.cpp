// What reading a tagged variant costs (odm/bson/tagged_variant.hpp), against reading the
// alternative it holds directly: the same stored document, {_id, payment: {_type, ...}},
// decoded into a model whose `payment` is the variant and into one whose `payment` is the
// alternative itself (which checks its own tag too). The issue's target: at most 1.05x when
// the tag is the first field. With the tag last, the variant finds it by stepping over the
// keys before it, then decodes the alternative once.
//
// scripts/bench_tagged_variant.sh builds and runs it (callgrind and Google Benchmark).

#include "callgrind_mode.hpp"

#include <odm/odm.hpp>

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <variant>

namespace {

struct Card {
  std::string number;
  std::string holder;
  std::int32_t expiry_month = 0;
  std::int32_t expiry_year = 0;
  std::string network;
  struct odm_model {
    static constexpr auto tag = odm::tag("card");
  };
};
struct Bank {
  std::string iban;
  std::string bic;
  struct odm_model {
    static constexpr auto tag = odm::tag("bank");
  };
};
struct Voucher {
  std::string code;
  std::int64_t cents = 0;
  struct odm_model {
    static constexpr auto tag = odm::tag("voucher");
  };
};

struct ByVariant {
  std::int64_t id = 0;
  std::variant<Bank, Voucher, Card> payment;  // the card is the last alternative: the most lookups
};
struct Direct {
  std::int64_t id = 0;
  Card payment;
};

struct Inputs {
  odm::Document tag_first;
  odm::Document tag_last;
};

const Inputs& inputs() {
  static const Inputs in = [] {
    Inputs out;
    out.tag_first = odm::to_bson(Direct{7, Card{"4111111111111111", "Ada Lovelace", 12, 2030, "visa"}});
    out.tag_last = odm::Document::from_json(
        R"({"_id": 7, "payment": {"number": "4111111111111111", "holder": "Ada Lovelace", "expiry_month": 12,)"
        R"( "expiry_year": 2030, "network": "visa", "_type": "card"}})");
    return out;
  }();
  return in;
}

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "tagged_variant_bench: %s\n", what);
  std::exit(1);
}

[[gnu::noinline]] void decode_tag_first_variant(const Inputs& in) {
  auto value = odm::from_bson<ByVariant>(in.tag_first);
  benchmark::DoNotOptimize(value);
}
[[gnu::noinline]] void decode_tag_first_alternative(const Inputs& in) {
  auto value = odm::from_bson<Direct>(in.tag_first);
  benchmark::DoNotOptimize(value);
}
[[gnu::noinline]] void decode_tag_last_variant(const Inputs& in) {
  auto value = odm::from_bson<ByVariant>(in.tag_last);
  benchmark::DoNotOptimize(value);
}
[[gnu::noinline]] void decode_tag_last_alternative(const Inputs& in) {
  auto value = odm::from_bson<Direct>(in.tag_last);
  benchmark::DoNotOptimize(value);
}

constexpr BenchCase<Inputs> cases[] = {
    {"decode_tag_first_variant", decode_tag_first_variant},
    {"decode_tag_first_alternative", decode_tag_first_alternative},
    {"decode_tag_last_variant", decode_tag_last_variant},
    {"decode_tag_last_alternative", decode_tag_last_alternative},
};

}  // namespace

int main(int argc, char** argv) {
  // The two models read the same values from each document.
  for (const odm::Document* doc : {&inputs().tag_first, &inputs().tag_last}) {
    const auto variant = odm::from_bson<ByVariant>(*doc);
    const auto direct = odm::from_bson<Direct>(*doc);
    const Card* card = std::get_if<Card>(&variant.payment);
    if (card == nullptr || card->number != direct.payment.number || card->network != direct.payment.network ||
        card->expiry_year != direct.payment.expiry_year)
      fail("the variant and the alternative read different values");
  }
  return bench_main(argc, argv, "tagged_variant_bench", cases, inputs);
}
