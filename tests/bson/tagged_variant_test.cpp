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

// The tag an UnknownKind carries is its document's: one that says another kind would read
// back as that one, so it is refused.
TEST(TaggedVariant, UnknownKindWhoseTagIsNotItsDocumentsIsAnEncodeError) {
  const auto refused = [](std::string tag) -> std::string {
    Ledger ledger{"l", {odm::UnknownKind{std::move(tag), odm::Document::from_json(R"({"_type": "gift", "code": "X"})")}}};
    try {
      (void)odm::to_bson(ledger);
    } catch (const odm::EncodeError& error) {
      return error.what();
    }
    return "written";
  };
  EXPECT_EQ(refused("voucher"),
            R"(entries.0._type: odm::UnknownKind's tag "voucher" is not the kind its document stores ("gift"), so )"
            R"(it would read back as another; keep the two as they were read)");
  EXPECT_EQ(refused("").substr(0, 58), R"(entries.0._type: odm::UnknownKind's tag "" is not the kind)");
  EXPECT_EQ(refused("gift"), "written");
}

/// `levels` documents, each the field "a" of the one around it, the innermost {"_type": "deep"}.
odm::Document nested_unknown(std::size_t levels) {
  odm::Document inner = odm::Document::from_json(R"({"_type": "deep"})");
  for (std::size_t i = 1; i < levels; ++i) {
    odm::Document outer = odm::Document::from_json(R"({"_type": "deep"})");
    bson_append_document(outer.get_mutable(), "a", 1, inner.get());
    inner = std::move(outer);
  }
  return inner;
}

// The document an UnknownKind keeps is held to what odm reads and writes anywhere else:
// MongoDB's 100 levels of nesting (odm::max_depth) and UTF-8, on the way in and out.
TEST(TaggedVariant, UnknownKindsDocumentIsCheckedLikeAnyOther) {
  // A Ledger's entry is at level 3: 98 levels of its own reach 100, 99 are too many.
  for (const std::size_t levels : {98u, 99u}) {
    Ledger ledger{"l", {odm::UnknownKind{"deep", nested_unknown(levels)}}};
    odm::Document stored;
    {
      bson_t* raw = bson_new();
      bson_append_utf8(raw, "_id", 3, "l", 1);
      bson_t entries;
      bson_append_array_begin(raw, "entries", 7, &entries);
      bson_append_document(&entries, "0", 1, std::get<odm::UnknownKind>(ledger.entries[0]).document.get());
      bson_append_array_end(raw, &entries);
      stored = odm::Document::adopt(raw);
    }
    if (levels == 98) {
      EXPECT_EQ(odm::to_bson(ledger), stored);
      EXPECT_EQ(odm::from_bson<Ledger>(stored), ledger);
      continue;
    }
    try {
      (void)odm::to_bson(ledger);
      ADD_FAILURE() << "a document nested 101 levels deep was written";
    } catch (const odm::EncodeError& error) {
      EXPECT_NE(std::string(error.what()).find("nested deeper than 100 levels"), std::string::npos) << error.what();
      EXPECT_EQ(std::string(error.what()).substr(0, 12), "entries.0.a.") << error.what();
    }
    try {
      (void)odm::from_bson<Ledger>(stored);
      ADD_FAILURE() << "a document nested 101 levels deep was read";
    } catch (const odm::DecodeError& error) {
      EXPECT_NE(std::string(error.what()).find("nested deeper than 100 levels"), std::string::npos) << error.what();
    }
  }
  // Invalid UTF-8 in the kept document, and in its tag.
  for (const std::string_view field : {"code", "_type"}) {
    odm::Document voucher;
    if (field == "code") bson_append_utf8(voucher.get_mutable(), "_type", 5, "voucher", 7);
    bson_append_utf8(voucher.get_mutable(), field.data(), static_cast<int>(field.size()), "\xff\xfe", 2);
    const std::string expected = "entries.0." + std::string(field) + ": string is not valid UTF-8";
    Ledger ledger{"l", {odm::UnknownKind{field == "code" ? "voucher" : "\xff\xfe", voucher}}};
    try {
      (void)odm::to_bson(ledger);
      ADD_FAILURE() << "invalid UTF-8 in " << field << " was written";
    } catch (const odm::EncodeError& error) {
      EXPECT_EQ(error.what(), expected);
    }
    bson_t* raw = bson_new();
    bson_append_utf8(raw, "_id", 3, "l", 1);
    bson_t entries;
    bson_append_array_begin(raw, "entries", 7, &entries);
    bson_append_document(&entries, "0", 1, voucher.get());
    bson_append_array_end(raw, &entries);
    try {
      (void)odm::from_bson<Ledger>(odm::Document::adopt(raw));
      ADD_FAILURE() << "invalid UTF-8 in " << field << " was read";
    } catch (const odm::DecodeError& error) {
      EXPECT_EQ(error.what(), expected);
    }
  }
}

// A kind's tag is one field: a document that holds it twice could be read as two kinds (by
// the first or the last), so it is refused wherever the tag is read, as a member is.
TEST(TaggedVariant, ATagFieldTwiceIsAnError) {
  const std::string twice = "._type: field appears twice in the document";
  // In a variant, the tag first, later, or both later; a strict alternative; alone.
  EXPECT_EQ(decode_error<Order>(R"({"_id": "o", "payment": {"_type": "card", "_type": "card", "number": "1"}})"),
            "payment" + twice);
  EXPECT_EQ(decode_error<Order>(R"({"_id": "o", "payment": {"_type": "card", "number": "1", "_type": "bank"}})"),
            "payment" + twice);
  EXPECT_EQ(decode_error<Order>(R"({"_id": "o", "payment": {"number": "1", "_type": "card", "_type": "card"}})"),
            "payment" + twice);
  EXPECT_EQ(decode_error<Order>(R"({"_id": "o", "payment": {"_type": "bank", "iban": "D", "_type": "bank"}})"),
            "payment" + twice);
  EXPECT_EQ(decode_error<Wallet>(R"({"_id": "w", "card": {"_type": "card", "number": "1", "_type": "card"}})"),
            "card" + twice);
  EXPECT_EQ(decode_error<Wallet>(R"({"_id": "w", "card": {"number": "1", "_type": "card", "_type": "card"}})"),
            "card" + twice);
  // Also when the first tag names no kind, or is no string: the field twice is what is wrong.
  EXPECT_EQ(decode_error<Order>(R"({"_id": "o", "payment": {"_type": "voucher", "number": "1", "_type": "card"}})"),
            "payment" + twice);
  EXPECT_EQ(decode_error<Order>(R"({"_id": "o", "payment": {"_type": 7, "number": "1", "_type": "card"}})"),
            "payment" + twice);
  EXPECT_EQ(decode_error<Order>(R"({"_id": "o", "payment": {"number": "1", "_type": 7, "_type": "card"}})"),
            "payment" + twice);
  EXPECT_EQ(decode_error<Ledger>(R"({"_id": "l", "entries": [{"_type": 7, "_type": "gift"}]})"), "entries.0" + twice);
  // A struct with an Extra member, and a whole document.
  EXPECT_EQ(decode_error<OpenHolder>(R"({"_id": "h", "card": {"_type": "open_card", "x": 1, "_type": "open_card"}})"),
            "card" + twice);
  EXPECT_EQ(decode_error<Voucher>(R"({"_type": "voucher", "_id": "v", "_type": "voucher", "cents": 5})"),
            twice.substr(1));
  // Kept by an UnknownKind: refused when read, and when written.
  EXPECT_EQ(decode_error<Ledger>(R"({"_id": "l", "entries": [{"_type": "gift", "_type": "gift"}]})"),
            "entries.0" + twice);
  EXPECT_EQ(decode_error<Ledger>(R"({"_id": "l", "entries": [{"code": "X", "_type": "gift", "_type": "card"}]})"),
            "entries.0" + twice);
  odm::Document doubled;
  bson_append_utf8(doubled.get_mutable(), "_type", 5, "gift", 4);
  bson_append_utf8(doubled.get_mutable(), "_type", 5, "gift", 4);
  try {
    (void)odm::to_bson(Ledger{"l", {odm::UnknownKind{"gift", doubled}}});
    ADD_FAILURE() << "a kept document with two tags was written";
  } catch (const odm::EncodeError& error) {
    EXPECT_EQ(std::string(error.what()).substr(0, 67),
              "entries.0._type: odm::UnknownKind's document holds this field twice");
  }
}

// A stored tag in a message is shown as the bytes it is: quotes, backslashes and control
// characters escaped, bytes of text that is not UTF-8 in hex.
TEST(TaggedVariant, AStoredTagInAMessageIsEscaped) {
  EXPECT_EQ(decode_error<Order>(R"({"_id": "o", "payment": {"_type": "a\"b\\c\nd"}})").substr(0, 42),
            R"(payment._type: unknown kind "a\"b\\c\x0ad")");
  EXPECT_EQ(decode_error<Wallet>(R"({"_id": "w", "card": {"_type": "x\"y", "number": "1"}})"),
            R"(card._type: kind "x\"y", not "card")");
  bson_t* raw = bson_new();
  bson_append_utf8(raw, "_id", 3, "w", 1);
  bson_t card;
  bson_append_document_begin(raw, "card", 4, &card);
  bson_append_utf8(&card, "_type", 5, "\xff" "a", 2);
  bson_append_document_end(raw, &card);
  try {
    (void)odm::from_bson<Wallet>(odm::Document::adopt(raw));
    ADD_FAILURE() << "a tag that is not UTF-8 was read";
  } catch (const odm::DecodeError& error) {
    EXPECT_EQ(std::string(error.what()), R"(card._type: kind "\xffa", not "card")");
  }
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
