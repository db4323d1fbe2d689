// Tagged variants (odm::tag, odm/bson/tagged_variant.hpp): a std::variant whose alternatives
// all declare a kind tag is written with the tag first and read by the tag alone, so shapes
// that untagged decoding cannot tell apart (one alternative's fields a subset of another's)
// read back as written; old tag values are read, an unknown tag is an error naming it (or
// kept whole by odm::UnknownKind), and other ODMs' fields can be named.
// ODM_VARIANT_SEED chooses the seed of the random round trips (default 20261202).

#include "evolution/random_values.hpp"
#include "test_support.hpp"

#include <odm/evolution/extra.hpp>
#include <odm/evolution/schema.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace bson_tagged_variant_test {

namespace rv = odm_test::random_values;

std::uint64_t seed() {
  const char* text = std::getenv("ODM_VARIANT_SEED");
  return text != nullptr ? std::strtoull(text, nullptr, 10) : 20261202u;
}

// The issue's shapes: Card's fields are a subset of CardWithExpiry's, Sum's of Scaled's, and
// the subset comes first, the order untagged decoding refuses.
struct Card {
  std::string number;
  struct odm_model {
    static constexpr auto tag = odm::tag("card");
  };
  bool operator==(const Card&) const = default;
};
struct CardWithExpiry {
  std::string number;
  std::string expiry;
  struct odm_model {
    static constexpr auto tag = odm::tag("card_with_expiry").renamed_from("expiring_card");
  };
  bool operator==(const CardWithExpiry&) const = default;
};
struct Bank {
  std::string iban;
  std::optional<std::string> bic;
  struct odm_model {
    static constexpr auto tag = odm::tag("bank").renamed_from("bank_transfer").renamed_from("iban");
    static constexpr bool strict = true;  // the tag is not an unknown field
  };
  bool operator==(const Bank&) const = default;
};
using Payment = std::variant<Card, CardWithExpiry, Bank>;

struct Order {
  std::string id;
  Payment payment;
  std::vector<Payment> refunds;
  std::optional<Payment> deposit;
  bool operator==(const Order&) const = default;
};

namespace recursive {
struct Expr;
struct Sum {
  std::vector<Expr> terms;
  struct odm_model {
    static constexpr auto tag = odm::tag("sum");
  };
  bool operator==(const Sum&) const;
};
struct Scaled {
  double factor;
  std::vector<Expr> terms;
  struct odm_model {
    static constexpr auto tag = odm::tag("scaled");
  };
  bool operator==(const Scaled&) const;
};
struct Expr {
  std::variant<Sum, Scaled> e;
  bool operator==(const Expr&) const;
};
bool Expr::operator==(const Expr& other) const { return e == other.e; }
bool Sum::operator==(const Sum& other) const { return terms == other.terms; }
bool Scaled::operator==(const Scaled& other) const { return factor == other.factor && terms == other.terms; }
}  // namespace recursive
using recursive::Expr;

struct Formula {
  std::string id;
  Expr expr;
  bool operator==(const Formula&) const = default;
};

TEST(TaggedVariant, TheTagIsWrittenFirst) {
  const Order order{"o1", CardWithExpiry{"4111", "12/30"}, {Card{"5500"}, Bank{"DE89", std::nullopt}}, std::nullopt};
  EXPECT_EQ(odm::to_json(order),
            R"({ "_id" : "o1", "payment" : { "_type" : "card_with_expiry", "number" : "4111", "expiry" : "12/30" }, )"
            R"("refunds" : [ { "_type" : "card", "number" : "5500" }, { "_type" : "bank", "iban" : "DE89", "bic" : null } ], )"
            R"("deposit" : null })");
}

TEST(TaggedVariant, TheIssuesShapesReadBackAsWritten) {
  const Order order{"o1", CardWithExpiry{"4111", "12/30"}, {Card{"4111"}}, Payment{Card{"1"}}};
  const Order back = odm::from_bson<Order>(odm::to_bson(order));
  EXPECT_EQ(back, order);
  EXPECT_EQ(back.payment.index(), 1u);
  const Formula formula{"f", Expr{recursive::Scaled{2.5, {Expr{recursive::Sum{}}}}}};
  EXPECT_EQ(odm::from_bson<Formula>(odm::to_bson(formula)), formula);
  EXPECT_EQ(odm::from_bson<Formula>(odm::to_bson(formula)).expr.e.index(), 1u);
}

TEST(TaggedVariant, RandomValuesReadBackAsWritten) {
  rv::Rng rng(seed());
  for (int i = 0; i < 2000; ++i) {
    const Order order = rv::make<Order>(rng, 0);
    const Formula formula = rv::make<Formula>(rng, 0);
    ASSERT_EQ(odm::from_bson<Order>(odm::to_bson(order)), order) << "seed " << seed() << ", value " << i << ": "
                                                                 << odm::to_json(order);
    ASSERT_EQ(odm::from_bson<Formula>(odm::to_bson(formula)), formula)
        << "seed " << seed() << ", value " << i << ": " << odm::to_json(formula);
  }
}

TEST(TaggedVariant, TheTagIsFoundWhereverItIs) {
  // Another program may write the tag anywhere; a server moves `_id` before it.
  const auto order = odm::from_json<Order>(
      R"({"_id": "o", "payment": {"number": "1", "expiry": "x", "_type": "card_with_expiry"}, "refunds": [)"
      R"({"iban": "DE", "_type": "bank", "bic": "B"}]})");
  EXPECT_EQ(order.payment, Payment(CardWithExpiry{"1", "x"}));
  EXPECT_EQ(order.refunds, (std::vector<Payment>{Bank{"DE", "B"}}));
}

TEST(TaggedVariant, OldTagValuesAreReadAndTheCurrentOneWritten) {
  const auto order = odm::from_json<Order>(
      R"({"_id": "o", "payment": {"_type": "expiring_card", "number": "1", "expiry": "x"}, "refunds": [)"
      R"({"_type": "iban", "iban": "DE"}, {"_type": "bank_transfer", "iban": "FR"}]})");
  EXPECT_EQ(order.payment, Payment(CardWithExpiry{"1", "x"}));
  EXPECT_EQ(order.refunds, (std::vector<Payment>{Bank{"DE", std::nullopt}, Bank{"FR", std::nullopt}}));
  EXPECT_NE(odm::to_json(order).find(R"("_type" : "card_with_expiry")"), std::string::npos);
  EXPECT_EQ(odm::to_json(order).find("expiring_card"), std::string::npos);
}

/// The DecodeError from_json throws for `json`, as "path: reason".
template <class T>
std::string decode_error(std::string_view json) {
  try {
    (void)odm::from_json<T>(json);
  } catch (const odm::DecodeError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(TaggedVariant, AnUnknownTagIsAnErrorNamingItAndTheKnownOnes) {
  EXPECT_EQ(decode_error<Order>(R"({"_id": "o", "payment": {"_type": "voucher", "code": "X"}, "refunds": []})"),
            R"(payment._type: unknown kind "voucher" (this variant reads "card", "card_with_expiry", )"
            R"("expiring_card", "bank", "bank_transfer", "iban"; odm::UnknownKind as its last alternative keeps such )"
            R"(documents))");
  EXPECT_EQ(decode_error<Order>(R"({"_id": "o", "payment": {"_type": "card", "number": "1"}, "refunds": [)"
                                R"({"_type": "Card", "number": "2"}]})")
                .substr(0, 40),
            R"(refunds.0._type: unknown kind "Card" (th)");
}

TEST(TaggedVariant, AMissingOrMistypedTagIsAnError) {
  EXPECT_EQ(decode_error<Order>(R"({"_id": "o", "payment": {"number": "1"}, "refunds": []})"),
            R"(payment._type: missing: a tagged variant needs the kind's tag (it reads "card", "card_with_expiry", )"
            R"("expiring_card", "bank", "bank_transfer", "iban"))");
  EXPECT_EQ(decode_error<Order>(R"({"_id": "o", "payment": {"_type": 1, "number": "1"}, "refunds": []})"),
            "payment._type: expected a kind's tag (a string), got int");
  EXPECT_EQ(decode_error<Order>(R"({"_id": "o", "payment": "card", "refunds": []})"),
            "payment: expected object, got string");
  // The alternative the tag names is decoded, strictly as it is declared.
  EXPECT_EQ(decode_error<Order>(R"({"_id": "o", "payment": {"_type": "bank", "iban": "DE", "x": 1}, "refunds": []})"),
            "payment.x: unknown field (the model is strict)");
  EXPECT_EQ(decode_error<Order>(R"({"_id": "o", "payment": {"_type": "card_with_expiry", "number": "1"}, "refunds": []})"),
            "payment.expiry: missing required field");
}

// A struct with a tag writes it wherever it is stored, so a member can later become a
// variant of it without a migration; read alone, it refuses a document of another kind and
// reads one written before it had a tag.
struct Wallet {
  std::string id;
  Card card;
  std::optional<Bank> bank;
  bool operator==(const Wallet&) const = default;
};

TEST(TaggedVariant, ATaggedStructAloneWritesAndChecksItsTag) {
  const Wallet wallet{"w", Card{"1"}, Bank{"DE", std::nullopt}};
  EXPECT_EQ(odm::to_json(wallet), R"({ "_id" : "w", "card" : { "_type" : "card", "number" : "1" }, )"
                                  R"("bank" : { "_type" : "bank", "iban" : "DE", "bic" : null } })");
  EXPECT_EQ(odm::from_bson<Wallet>(odm::to_bson(wallet)), wallet);
  EXPECT_EQ(odm::from_json<Wallet>(R"({"_id": "w", "card": {"number": "1"}})").card, Card{"1"});
  EXPECT_EQ(odm::from_json<Wallet>(R"({"_id": "w", "card": {"number": "1", "_type": "card"}})").card, Card{"1"});
  EXPECT_EQ(decode_error<Wallet>(R"({"_id": "w", "card": {"_type": "bank", "number": "1"}})"),
            R"(card._type: kind "bank", not "card")");
  EXPECT_EQ(decode_error<Wallet>(R"({"_id": "w", "card": {"number": "1", "_type": "bank"}})"),
            R"(card._type: kind "bank", not "card")");
  EXPECT_EQ(decode_error<Wallet>(R"({"_id": "w", "card": {"number": "1"}, "bank": {"_type": ["bank"], "iban": "DE"}})"),
            "bank._type: expected a kind's tag (a string), got array");
  // A strict struct takes its own tag field, in any position.
  EXPECT_EQ(odm::from_json<Wallet>(R"({"_id": "w", "card": {"number": "1"}, "bank": {"iban": "DE", "_type": "iban"}})")
                .bank,
            (Bank{"DE", std::nullopt}));
}

// A tagged struct at the top level: the tag first, `_id` wherever the server puts it.
struct Voucher {
  std::string id;
  std::int64_t cents = 0;
  struct odm_model {
    static constexpr auto tag = odm::tag("voucher");
  };
  bool operator==(const Voucher&) const = default;
};

TEST(TaggedVariant, ATaggedModelIsWholeDocumentToo) {
  EXPECT_EQ(odm::to_json(Voucher{"v", 500}), R"({ "_type" : "voucher", "_id" : "v", "cents" : 500 })");
  EXPECT_EQ(odm::from_json<Voucher>(R"({"_id": "v", "_type": "voucher", "cents": 5})"), (Voucher{"v", 5}));
  EXPECT_EQ(decode_error<Voucher>(R"({"_id": "v", "_type": "card", "cents": 5})"), R"(_type: kind "card", not "voucher")");
}

// A struct that keeps unknown fields does not keep the tag (it would be written twice).
struct OpenCard {
  std::string number;
  odm::Extra extra;
  struct odm_model {
    static constexpr auto tag = odm::tag("open_card");
  };
  bool operator==(const OpenCard&) const = default;
};
struct OpenHolder {
  std::string id;
  std::variant<OpenCard, Card> card;
  bool operator==(const OpenHolder&) const = default;
};

TEST(TaggedVariant, AnExtraMemberDoesNotKeepTheTag) {
  const auto holder = odm::from_json<OpenHolder>(R"({"_id": "h", "card": {"number": "1", "_type": "open_card", "x": 2}})");
  EXPECT_EQ(odm::to_json(holder), R"({ "_id" : "h", "card" : { "_type" : "open_card", "number" : "1", "x" : 2 } })");
}

// An older service keeps, and writes back unchanged, a kind a newer one added.
struct Ledger {
  std::string id;
  std::vector<std::variant<Card, Bank, odm::UnknownKind>> entries;
  bool operator==(const Ledger&) const = default;
};

TEST(TaggedVariant, UnknownKindKeepsTheDocumentAndWritesItBackUnchanged) {
  const std::string voucher = R"({ "code" : "X", "_type" : "voucher", "nested" : { "a" : [ 1, 2.5 ] } })";
  const auto stored = odm::Document::from_json(R"({ "_id" : "l", "entries" : [ { "_type" : "card", "number" : "1" }, )" +
                                               voucher + " ] }");
  const auto ledger = odm::from_bson<Ledger>(stored);
  ASSERT_EQ(ledger.entries.size(), 2u);
  ASSERT_EQ(ledger.entries[1].index(), 2u);
  const auto& unknown = std::get<odm::UnknownKind>(ledger.entries[1]);
  EXPECT_EQ(unknown.tag, "voucher");
  EXPECT_EQ(unknown.document.to_json(), voucher);
  EXPECT_EQ(odm::to_bson(ledger), stored);  // byte for byte
  // A document without a tag is still an error: UnknownKind keeps kinds, not anything.
  EXPECT_EQ(decode_error<Ledger>(R"({"_id": "l", "entries": [{"code": "X"}]})").substr(0, 50),
            "entries.0._type: missing: a tagged variant needs t");
}

// An UnknownKind made by hand is written only when it reads back as itself: with a tag
// field, a string naming none of the variant's kinds.
TEST(TaggedVariant, UnknownKindThatWouldNotReadBackIsAnEncodeError) {
  const auto refused = [](odm::Document document) -> std::string {
    Ledger ledger{"l", {Card{"1"}, odm::UnknownKind{"voucher", std::move(document)}}};
    try {
      (void)odm::to_bson(ledger);
    } catch (const odm::EncodeError& error) {
      return error.what();
    }
    return "written";
  };
  const std::string no_tag =
      "entries.1._type: odm::UnknownKind's document has no kind's tag (a string) in this field, so it would not "
      "read back; keep the document as it was read, tag included";
  EXPECT_EQ(refused(odm::Document{}), no_tag);
  EXPECT_EQ(refused(odm::Document::from_json(R"({"code": "X"})")), no_tag);
  EXPECT_EQ(refused(odm::Document::from_json(R"({"_type": 3, "code": "X"})")), no_tag);
  EXPECT_EQ(refused(odm::Document::from_json(R"({"_type": "bank", "iban": "X"})")),
            "entries.1._type: odm::UnknownKind holds a document of kind \"bank\", which this variant reads as one "
            "of its own alternatives; write that alternative instead");
  EXPECT_EQ(refused(odm::Document::from_json(R"({"code": "X", "_type": "voucher"})")), "written");
}

// Documents of other programs: name their field and values.
namespace mongoose {
struct Click {
  std::string element;
  struct odm_model {
    static constexpr auto tag = odm::tag("Click").stored_in("__t");
  };
  bool operator==(const Click&) const = default;
};
struct Purchase {
  std::int32_t amount;
  struct odm_model {
    static constexpr auto tag = odm::tag("Purchase").stored_in("__t");
  };
  bool operator==(const Purchase&) const = default;
};
struct Event {
  odm::ObjectId id;
  std::variant<Click, Purchase> event;
  bool operator==(const Event&) const = default;
};
}  // namespace mongoose

TEST(TaggedVariant, AnotherProgramsFieldIsNamedByTheTag) {
  const auto event = odm::from_json<mongoose::Event>(
      R"({"_id": {"$oid": "0123456789abcdef01234567"}, "event": {"amount": 3, "__t": "Purchase"}})");
  EXPECT_EQ(event.event, (std::variant<mongoose::Click, mongoose::Purchase>(mongoose::Purchase{3})));
  EXPECT_NE(odm::to_json(event).find(R"({ "__t" : "Purchase", "amount" : 3 })"), std::string::npos);
  EXPECT_EQ(decode_error<mongoose::Event>(
                R"({"_id": {"$oid": "0123456789abcdef01234567"}, "event": {"_type": "Purchase", "amount": 3}})")
                .substr(0, 50),
            "event.__t: missing: a tagged variant needs the kin");
}

// Tagged structs inside an untagged variant: their tags tell them apart, so shapes that
// would otherwise be refused compile, and read back as written.
struct Mixed {
  std::string id;
  std::variant<std::string, Card, CardWithExpiry> value;
  bool operator==(const Mixed&) const = default;
};

TEST(TaggedVariant, TagsTellStructsApartInAnUntaggedVariant) {
  static_assert(!odm::codec<decltype(Mixed::value)>::by_tag);
  for (const Mixed& mixed : {Mixed{"a", std::string("x")}, Mixed{"b", Card{"1"}}, Mixed{"c", CardWithExpiry{"1", "2"}}})
    EXPECT_EQ(odm::from_bson<Mixed>(odm::to_bson(mixed)), mixed);
}

TEST(TaggedVariant, TheSchemaFixesEachAlternativesTag) {
  const std::string schema = odm::json_schema<Wallet>().to_json();
  EXPECT_NE(schema.find(R"("_type" : { "bsonType" : "string", "enum" : [ "card" ] })"), std::string::npos) << schema;
  EXPECT_NE(schema.find(R"("_type" : { "bsonType" : "string", "enum" : [ "bank", "bank_transfer", "iban" ] })"),
            std::string::npos)
      << schema;
  EXPECT_NE(schema.find(R"("required" : [ "_type", "number" ])"), std::string::npos) << schema;
}

}  // namespace bson_tagged_variant_test
