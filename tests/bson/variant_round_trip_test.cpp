// A std::variant reads back as the alternative that was written. Decoding picks the first
// alternative whose shape fits the stored value (variant_test.cpp), so odm refuses, when the
// program compiles, a variant with a later alternative whose values an earlier one's shape
// could accept (detail/variant_alternatives.hpp; the compile-fail cases variant_*.cpp show
// the messages). These tests hold the two halves together:
//  - the compile-time judgement against the run-time rule: for every ordered pair of a set
//    of member types, if the check says a value of B never reads as A, then A's shape
//    refuses every random B odm writes;
//  - round trips of random values of variants of every shape that compiles: scalars, structs
//    whose fields overlap, strict structs, arrays, maps, optionals, references, money,
//    nested and recursive variants.
// ODM_VARIANT_SEED chooses the seed (default 20261202); a failure prints it.

#include "evolution/random_values.hpp"
#include "test_support.hpp"

#include <odm/evolution/rename.hpp>

#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

namespace bson_variant_round_trip_test {

namespace rv = odm_test::random_values;

std::uint64_t seed() {
  const char* text = std::getenv("ODM_VARIANT_SEED");
  return text != nullptr ? std::strtoull(text, nullptr, 10) : 20261202u;
}

enum class Color { red, green };
enum class Shade { dark, light };
enum class Tone { red, blue };
enum class Level { low, high };
}  // namespace bson_variant_round_trip_test
template <>
inline constexpr odm::EnumStorage odm::enum_storage<bson_variant_round_trip_test::Level> = odm::EnumStorage::integer;

namespace bson_variant_round_trip_test {

/// A codec of your own: stored as a double, read by the double codec, which takes whole
/// numbers too (so it must come after an integer alternative).
struct Celsius {
  double degrees;
  bool operator==(const Celsius&) const = default;
};
}  // namespace bson_variant_round_trip_test
template <>
struct odm::codec<bson_variant_round_trip_test::Celsius> {
  using kind = odm::kind_of<double>;
  static void encode(bson_t* parent, std::string_view key, const bson_variant_round_trip_test::Celsius& value) {
    odm::codec<double>::encode(parent, key, value.degrees);
  }
  static void decode(const bson_iter_t& it, bson_variant_round_trip_test::Celsius& out) {
    odm::codec<double>::decode(it, out.degrees);
  }
};
template <>
struct odm_test::random_values::Gen<bson_variant_round_trip_test::Celsius> {
  static bson_variant_round_trip_test::Celsius make(Rng& rng, int depth) { return {Gen<double>::make(rng, depth)}; }
};

namespace bson_variant_round_trip_test {

struct Point {
  std::int32_t x;
  std::int32_t y;
  bool operator==(const Point&) const = default;
};
struct Named {
  std::string name;
  bool operator==(const Named&) const = default;
};
struct NamedAged {
  std::string name;
  std::int32_t age;
  bool operator==(const NamedAged&) const = default;
};
struct StrictNamed {
  std::string name;
  struct odm_model {
    static constexpr bool strict = true;
  };
  bool operator==(const StrictNamed&) const = default;
};
struct MaybeX {
  std::optional<std::int32_t> x;
  bool operator==(const MaybeX&) const = default;
};
struct NamedWithExtra {
  std::string name;
  odm::Extra extra;
};
/// `title` was called `name`, and this release writes both (a rename's expand phase).
struct Titled {
  std::string title;
  struct odm_model {
    static constexpr auto fields = odm::fields(odm::renamed_from<&Titled::title>("name"));
  };
  bool operator==(const Titled&) const = default;
};
struct Target {
  std::int64_t id;
};
struct Amount {
  odm::Decimal value;
  std::string currency;
};

using Millis = std::chrono::sys_time<std::chrono::milliseconds>;

// ---------------------------------------------------------------------------------------
// The compile-time judgement against the run-time rule.

template <class... T>
struct Types {};
using Members =
    Types<bool, std::int32_t, std::int64_t, double, std::string, Color, Shade, Tone, Level, Millis, odm::ObjectId,
          odm::Decimal, odm::Money, odm::DisplayMoney, odm::ScaledAmount<100>, odm::DecimalFromLegacy<100>, odm::Binary,
          Celsius, std::optional<std::int32_t>, std::optional<std::string>, std::vector<std::int32_t>,
          std::vector<std::string>, std::array<std::string, 2>, std::map<std::string, std::int32_t>,
          std::map<std::string, std::string>, Point, Named, NamedAged, StrictNamed, MaybeX, NamedWithExtra, Titled,
          Amount, odm::Embedded<Point>, odm::Ref<Target>, odm::ParentRef<Target>, odm::RefMany<Target>,
          std::variant<std::int32_t, std::string>>;
template <class... T>
constexpr int count_of(Types<T...>) {
  return sizeof...(T);
}
constexpr int member_count = count_of(Members{});

/// Whether the check lets a value of B come after A in a variant.
template <class A, class B>
constexpr bool told_apart = !odm::detail::may_read_v<typename odm::detail::variant_shape<A>::reads, odm::kind_of<B>>;

/// `value` encoded alone, as the field "v" of a document.
template <class B>
odm::Document stored(const B& value) {
  odm::Document out;
  odm::codec<B>::encode(out.get_mutable(), "v", value);
  return out;
}

struct PairCount {
  int told_apart = 0;
  int refused = 0;
};

/// For the pair (A, B): if B is told apart from A, A's shape must refuse `samples` random Bs.
template <class A, class B>
void check_pair(rv::Rng& rng, int samples, PairCount& count) {
  if constexpr (!told_apart<A, B>) {
    ++count.refused;
  } else {
    ++count.told_apart;
    for (int i = 0; i < samples; ++i) {
      const B value = rv::make<B>(rng, 0);
      const odm::Document document = stored(value);
      bson_iter_t it;
      ASSERT_TRUE(bson_iter_init_find(&it, document.get(), "v"));
      std::string why;
      ASSERT_FALSE(odm::detail::variant_shape<A>::fits(it, why))
          << "the check tells " << testing::internal::GetTypeName<B>() << " apart from "
          << testing::internal::GetTypeName<A>() << ", but the shape of the second accepts " << document.to_json()
          << " (seed " << seed() << ")";
    }
  }
}

template <class A, class... B>
void check_row(rv::Rng& rng, int samples, PairCount& count) {
  (check_pair<A, B>(rng, samples, count), ...);
}

template <class... T>
PairCount check_all(Types<T...>, rv::Rng& rng, int samples) {
  PairCount count;
  (check_row<T, T...>(rng, samples, count), ...);
  return count;
}

TEST(VariantRoundTrip, WhatTheCheckTellsApartTheShapeNeverAccepts) {
  rv::Rng rng(seed());
  const PairCount count = check_all(Members{}, rng, 40);
  // Both kinds of verdict occur, so the test compares something: 38 types, 1,444 pairs.
  EXPECT_GT(count.told_apart, 700);
  EXPECT_GT(count.refused, 150);
  static_assert(member_count == 38);
  EXPECT_EQ(count.told_apart + count.refused, member_count * member_count);
}

struct Sum {
  std::vector<std::int32_t> terms;
};
struct Scaled {
  double factor;
  std::vector<std::int32_t> terms;
};

TEST(VariantRoundTrip, TheIssuesShapesAreRefusedForAReason) {
  // What the check refuses does happen: a value of the later alternative fits the earlier one.
  const auto fits = []<class A, class B>(std::type_identity<A>, const B& value) {
    const odm::Document document = stored(value);
    bson_iter_t it;
    bson_iter_init_find(&it, document.get(), "v");
    std::string why;
    return odm::detail::variant_shape<A>::fits(it, why);
  };
  static_assert(!told_apart<Sum, Scaled> && told_apart<Scaled, Sum>);
  EXPECT_TRUE(fits(std::type_identity<Sum>{}, Scaled{2.5, {1, 2}}));
  EXPECT_FALSE(fits(std::type_identity<Scaled>{}, Sum{{1, 2}}));
  static_assert(!told_apart<Named, NamedAged> && told_apart<NamedAged, Named>);
  EXPECT_TRUE(fits(std::type_identity<Named>{}, NamedAged{"4111", 12}));
  // Neither order: an int64 member reads an int32, an int32 member an int64 that fits it.
  static_assert(!told_apart<std::int32_t, std::int64_t> && !told_apart<std::int64_t, std::int32_t>);
  EXPECT_TRUE(fits(std::type_identity<std::int32_t>{}, std::int64_t{5}));
  EXPECT_TRUE(fits(std::type_identity<std::int64_t>{}, std::int32_t{5}));
  // An empty vector of strings fits a vector of ints.
  static_assert(!told_apart<std::vector<std::int32_t>, std::vector<std::string>>);
  EXPECT_TRUE(fits(std::type_identity<std::vector<std::int32_t>>{}, std::vector<std::string>{}));
  // A struct that keeps unknown fields may hold any other field: a Named's shape cannot tell.
  static_assert(!told_apart<NamedAged, NamedWithExtra>);
  // A strict struct refuses the field it lacks; a renamed member's old name counts.
  static_assert(told_apart<StrictNamed, NamedAged> && !told_apart<StrictNamed, Named>);
  static_assert(!told_apart<Named, Titled> && told_apart<StrictNamed, Point>);
  // A codec of your own is taken to read anything (this one reads integers too).
  static_assert(!told_apart<Celsius, std::int32_t> && told_apart<std::int32_t, Celsius>);
  EXPECT_TRUE(fits(std::type_identity<Celsius>{}, std::int32_t{5}));
  // Enums stored by name: apart when they share no name; never from a string.
  static_assert(told_apart<Color, Shade> && !told_apart<Color, Tone> && !told_apart<Color, std::string>);
  EXPECT_TRUE(fits(std::type_identity<Color>{}, Tone::red));
}

// ---------------------------------------------------------------------------------------
// Round trips of variants that compile.

namespace recursive {
struct Expr;
struct Leaf {
  std::int32_t value;
  bool operator==(const Leaf&) const = default;
};
/// The issue's shapes, in the order that tells them apart: the one with more fields first.
struct Scaled {
  double factor;
  std::vector<Expr> terms;
  bool operator==(const Scaled&) const;
};
struct Sum {
  std::vector<Expr> terms;
  bool operator==(const Sum&) const;
};
struct Expr {
  std::variant<Leaf, Scaled, Sum, std::optional<std::string>> node;
  bool operator==(const Expr&) const;
};
// (Written out: clang 14 crashes on defaulted comparisons of this recursion.)
bool Expr::operator==(const Expr& other) const { return node == other.node; }
bool Scaled::operator==(const Scaled& other) const { return factor == other.factor && terms == other.terms; }
bool Sum::operator==(const Sum& other) const { return terms == other.terms; }
}  // namespace recursive
using recursive::Expr;
using recursive::Leaf;

struct Card {
  std::string number;
  bool operator==(const Card&) const = default;
};
struct CardWithExpiry {
  std::string number;
  std::string expiry;
  bool operator==(const CardWithExpiry&) const = default;
};
struct StrictCard {
  std::string number;
  struct odm_model {
    static constexpr bool strict = true;
  };
  bool operator==(const StrictCard&) const = default;
};
struct Bank {
  std::string iban;
  std::optional<std::string> bic;
  bool operator==(const Bank&) const = default;
};

struct Tree {
  std::variant<std::string, std::map<std::string, Tree>> t;
  bool operator==(const Tree&) const;
};
bool Tree::operator==(const Tree& other) const { return t == other.t; }

struct Shapes {
  std::string id;
  std::variant<CardWithExpiry, Card, Bank> payment;
  std::variant<StrictCard, CardWithExpiry> strict_first;
  std::variant<bool, std::int32_t, double, std::string, Millis, odm::ObjectId, odm::Decimal, odm::Binary> scalar;
  std::variant<std::int64_t, double> number;
  std::variant<std::string, std::vector<std::string>> author;
  std::variant<std::array<std::string, 2>, std::vector<std::int32_t>> pair_or_list;
  std::variant<Point, std::map<std::string, std::string>> point_or_labels;
  std::variant<std::optional<std::string>, std::int32_t, Point> maybe;
  std::optional<std::variant<NamedAged, std::string>> optional_variant;
  std::variant<std::variant<std::int64_t, std::string>, std::vector<std::variant<Point, std::string>>> nested;
  std::variant<odm::Money, std::string, std::vector<odm::Money>> money;
  std::variant<odm::Ref<Target>, std::string> ref;
  std::variant<odm::Embedded<NamedAged>, Color> embedded;
  std::variant<Titled, Point> renamed;
  std::variant<std::int32_t, std::string, Celsius> own_codec;  // a codec of your own comes last
  std::variant<Color, Shade, Level, odm::DecimalFromLegacy<100>> enums;
  std::variant<odm::DisplayMoney, std::int64_t> display_money;
  std::optional<std::variant<std::int32_t, std::string>> optional_scalar;
  Expr expr;
  Tree tree;
  bool operator==(const Shapes&) const = default;
};

TEST(VariantRoundTrip, RandomValuesOfEveryShapeReadBackAsWritten) {
  rv::Rng rng(seed());
  for (int i = 0; i < 2000; ++i) {
    const Shapes value = rv::make<Shapes>(rng, 0);
    const odm::Document document = odm::to_bson(value);
    const Shapes back = odm::from_bson<Shapes>(document);
    ASSERT_TRUE(back == value) << "value " << i << " read back otherwise (seed " << seed() << "): " << document.to_json();
  }
}

TEST(VariantRoundTrip, TheIssuesValuesReadBackAsWritten) {
  const Shapes value{.id = "a",
                     .payment = CardWithExpiry{"4111", "12/30"},
                     .strict_first = CardWithExpiry{"4111", "12/30"},
                     .scalar = 2.5,
                     .number = std::int64_t{5},
                     .author = std::string("Herman Melville"),
                     .pair_or_list = std::vector<std::int32_t>{},
                     .point_or_labels = std::map<std::string, std::string>{{"x", "1"}, {"y", "2"}},
                     .maybe = std::nullopt,
                     .optional_variant = NamedAged{"n", 3},
                     .nested = std::vector<std::variant<Point, std::string>>{Point{1, 2}, std::string("p")},
                     .money = odm::Money(odm::Decimal(1250, -2), "EUR"),
                     .ref = odm::Ref<Target>(std::int64_t{7}),
                     .embedded = odm::Embedded<NamedAged>(NamedAged{"e", 1}),
                     .renamed = Titled{"t"},
                     .own_codec = Celsius{21.5},
                     .enums = Level::high,
                     .display_money = odm::DisplayMoney(odm::Money(odm::Decimal(5, 0), "USD")),
                     .optional_scalar = std::string("s"),
                     .expr = Expr{recursive::Scaled{2.5, {Expr{recursive::Sum{{Expr{Leaf{1}}, Expr{std::string("x")}}}}}}},
                     .tree = Tree{std::map<std::string, Tree>{{"a", Tree{std::string("leaf")}}}}};
  EXPECT_TRUE(odm_test::round_trip(value) == value) << odm::to_bson(value).to_json();
  EXPECT_EQ(odm_test::round_trip(value).payment.index(), 0u);
  EXPECT_EQ(std::get<recursive::Scaled>(odm_test::round_trip(value).expr.node).factor, 2.5);
}

}  // namespace bson_variant_round_trip_test
