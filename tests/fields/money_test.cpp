// odm::Money and the other storage models of money: ScaledAmount (scale factor),
// DisplayMoney (non-numeric) and DecimalFromLegacy (migration to Decimal128). Stored
// shapes are compared with the reference guide's documents, built with libbson.

#include <odm/fields/money.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace {

using odm::Decimal;
using odm::DecimalFromLegacy;
using odm::DisplayMoney;
using odm::Money;
using odm::RoundingMode;
using odm::ScaledAmount;

/// Owns a heap bson_t.
class BsonPtr {
 public:
  explicit BsonPtr(bson_t* doc) : doc_(doc) {}
  BsonPtr(BsonPtr&& other) noexcept : doc_(std::exchange(other.doc_, nullptr)) {}
  BsonPtr& operator=(BsonPtr&&) = delete;
  ~BsonPtr() {
    if (doc_) bson_destroy(doc_);
  }
  bson_t* get() const { return doc_; }

 private:
  bson_t* doc_;
};

BsonPtr from_json(const char* json) {
  bson_error_t error;
  bson_t* doc = bson_new_from_json(reinterpret_cast<const std::uint8_t*>(json), -1, &error);
  EXPECT_NE(doc, nullptr) << error.message << " in " << json;
  return BsonPtr(doc);
}

std::string canonical_json(const bson_t* doc) {
  char* json = bson_as_canonical_extended_json(doc, nullptr);
  std::string out = json;
  bson_free(json);
  return out;
}

/// `value` encoded as the field "price" of an otherwise empty document.
template <class T>
BsonPtr encode_price(const T& value) {
  BsonPtr doc(bson_new());
  odm::codec<T>::encode(doc.get(), "price", value);
  return doc;
}

/// Decodes the field "price" of the document `json`.
template <class T>
T decode_price(const char* json) {
  const BsonPtr doc = from_json(json);
  bson_iter_t it;
  if (!bson_iter_init_find(&it, doc.get(), "price")) throw std::logic_error("test document has no price");
  T out;
  odm::codec<T>::decode(it, out);
  return out;
}

/// Decodes "price" from `json` expecting a DecodeError; returns it.
template <class T>
odm::DecodeError decode_error(const char* json) {
  try {
    decode_price<T>(json);
  } catch (const odm::DecodeError& e) {
    return e;
  }
  ADD_FAILURE() << json << " decoded without an error";
  return odm::DecodeError("");
}

/// Both documents, as canonical Extended JSON (which also compares field order and types).
#define EXPECT_SAME_BSON(actual, expected_json) \
  EXPECT_EQ(canonical_json(actual), canonical_json(from_json(expected_json).get()))

// --- Money -----------------------------------------------------------------------------

TEST(MoneyBasics, AmountAndCurrency) {
  const Money price("119.99", "USD");
  EXPECT_TRUE(price.amount().same_representation(Decimal("119.99")));
  EXPECT_EQ(price.currency(), "USD");
  EXPECT_EQ(price.to_string(), "119.99 USD");
  std::ostringstream out;
  out << Money(Decimal("80.00"), "EUR");
  EXPECT_EQ(out.str(), "80.00 EUR");
  EXPECT_EQ(Money(5, "JPY").to_string(), "5 JPY");
  const Money none;
  EXPECT_TRUE(none.amount().is_zero());
  EXPECT_EQ(none.currency(), "XXX");
}

TEST(MoneyBasics, InvalidCurrencyCodesAreRefused) {
  for (const char* code : {"usd", "US", "USDD", "U$D", "", "Usd", "12A", "\xC3\x84" "BC"})
    EXPECT_THROW(Money("1.00", code), odm::ValueError) << code;
  EXPECT_THROW(Money("abc", "USD"), odm::ValueError);  // the amount is checked too
  EXPECT_TRUE(Money::is_currency_code("CHF"));
  EXPECT_FALSE(Money::is_currency_code("chf"));
}

TEST(MoneyArithmetic, SameCurrency) {
  const Money a("19.99", "USD");
  const Money b("0.01", "USD");
  EXPECT_EQ((a + b).to_string(), "20.00 USD");
  EXPECT_EQ((a - b).to_string(), "19.98 USD");
  EXPECT_EQ((-a).to_string(), "-19.99 USD");
  Money total("0.00", "USD");
  for (int i = 0; i < 3; ++i) total += a;
  EXPECT_EQ(total.to_string(), "59.97 USD");
  total -= b;
  EXPECT_EQ(total.to_string(), "59.96 USD");
}

TEST(MoneyArithmetic, MultiplicationIsExactAndNotRoundedToCents) {
  const Money price("19.99", "USD");
  EXPECT_EQ((price * 3).to_string(), "59.97 USD");
  EXPECT_EQ((3 * price).to_string(), "59.97 USD");
  EXPECT_EQ((price * Decimal("0.075")).to_string(), "1.49925 USD");  // tax: still exact
  EXPECT_EQ((price * Decimal("0.075")).round(2).to_string(), "1.50 USD");
  EXPECT_EQ((Decimal("1.5") * price).to_string(), "29.985 USD");
  EXPECT_EQ((Decimal("1.5") * price).round(2).to_string(), "29.98 USD");  // half-even
  EXPECT_EQ((Decimal("1.5") * price).round(2, RoundingMode::half_up).to_string(), "29.99 USD");
  Money m("10", "EUR");
  m *= Decimal("1.10");
  EXPECT_EQ(m.to_string(), "11.00 EUR");
}

TEST(MoneyArithmetic, Division) {
  const Money price("19.99", "USD");
  EXPECT_EQ((price / 4).to_string(), "4.9975 USD");
  EXPECT_EQ((price / 3).to_string(), "6.663333333333333333333333333333333 USD");
  EXPECT_EQ(divide(price, Decimal(3), 2).to_string(), "6.66 USD");
  EXPECT_EQ(divide(Money("0.05", "USD"), Decimal(2), 2).to_string(), "0.02 USD");  // 0.025, half-even
  EXPECT_EQ(divide(Money("0.05", "USD"), Decimal(2), 2, RoundingMode::half_up).to_string(), "0.03 USD");
  EXPECT_THROW(price / 0, odm::ValueError);
}

TEST(MoneyArithmetic, DifferentCurrenciesThrowCurrencyMismatch) {
  const Money usd("1.00", "USD");
  const Money eur("1.00", "EUR");
  for (auto op : {+[](const Money& a, const Money& b) { return a + b; },
                  +[](const Money& a, const Money& b) { return a - b; }}) {
    try {
      op(usd, eur);
      ADD_FAILURE() << "mixed currencies were accepted";
    } catch (const odm::CurrencyMismatch& e) {
      EXPECT_NE(std::string(e.what()).find("USD"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("EUR"), std::string::npos) << e.what();
    }
  }
  Money m = usd;
  EXPECT_THROW(m += eur, odm::CurrencyMismatch);
  EXPECT_EQ(m, usd);  // unchanged
  EXPECT_THROW(m + eur, odm::ValueError);  // CurrencyMismatch is a ValueError
}

TEST(MoneyCompare, SameCurrencyIsNumeric) {
  EXPECT_EQ(Money("2.0990", "USD"), Money("2.099", "USD"));
  EXPECT_NE(Money("2.10", "USD"), Money("2.099", "USD"));
  EXPECT_LT(Money("2.099", "USD"), Money("2.10", "USD"));
  EXPECT_GT(Money("-1", "USD"), Money("-1.01", "USD"));
  EXPECT_TRUE(Money("1", "USD").compare(Money("1.000", "USD")) == 0);
}

TEST(MoneyCompare, DifferentCurrencies) {
  const Money usd("5", "USD");
  const Money eur("5", "EUR");
  EXPECT_FALSE(usd == eur);  // well defined: not the same amount of money
  EXPECT_TRUE(usd != eur);
  EXPECT_THROW((void)(usd < eur), odm::CurrencyMismatch);
  EXPECT_THROW((void)(usd >= eur), odm::CurrencyMismatch);
  EXPECT_THROW((void)(usd <=> eur), odm::CurrencyMismatch);
  EXPECT_THROW((void)usd.compare(eur), odm::CurrencyMismatch);
}

TEST(MoneyCodec, StoredShapeIsValueThenCurrency) {
  const BsonPtr doc = encode_price(Money("119.99", "USD"));
  EXPECT_SAME_BSON(doc.get(), R"({"price": {"value": {"$numberDecimal": "119.99"}, "currency": "USD"}})");
  bson_iter_t it, value;
  ASSERT_TRUE(bson_iter_init(&it, doc.get()));
  ASSERT_TRUE(bson_iter_find_descendant(&it, "price.value", &value));
  EXPECT_EQ(bson_iter_type(&value), BSON_TYPE_DECIMAL128);
}

TEST(MoneyCodec, RoundTripKeepsTheCohort) {
  for (const char* amount : {"119.99", "80.00", "-0.10", "0", "1E+3", "9.999999999999999999999999999999999E+6144"}) {
    const Money original(amount, "GBP");
    const BsonPtr doc = encode_price(original);
    bson_iter_t it;
    ASSERT_TRUE(bson_iter_init_find(&it, doc.get(), "price"));
    Money back;
    odm::codec<Money>::decode(it, back);
    EXPECT_TRUE(back.amount().same_representation(original.amount())) << amount;
    EXPECT_EQ(back.currency(), "GBP");
  }
  // Field order on the wire does not matter when reading.
  const Money m = decode_price<Money>(R"({"price": {"currency": "USD", "value": {"$numberDecimal": "1.50"}}})");
  EXPECT_EQ(m.to_string(), "1.50 USD");
}

TEST(MoneyCodec, DecodingIsStrict) {
  struct Case {
    const char* json;
    const char* path;
    const char* reason;
  };
  const Case cases[] = {
      {R"({"price": {"value": 119.99, "currency": "USD"}})", "value", "expected decimal, got double"},
      {R"({"price": {"value": "119.99", "currency": "USD"}})", "value", "expected decimal, got string"},
      {R"({"price": {"value": {"$numberDecimal": "NaN"}, "currency": "USD"}})", "value",
       "expected a finite decimal, got NaN"},
      {R"({"price": {"value": {"$numberDecimal": "1"}, "currency": "usd"}})", "currency",
       "invalid ISO 4217 currency code \"usd\" (expected three uppercase letters A-Z)"},
      {R"({"price": {"value": {"$numberDecimal": "1"}, "currency": 840}})", "currency", "expected string, got int"},
      {R"({"price": {"value": {"$numberDecimal": "1"}}})", "currency", "missing required field"},
      {R"({"price": {"currency": "USD"}})", "value", "missing required field"},
      {R"({"price": {"value": {"$numberDecimal": "1"}, "currency": "USD", "note": "x"}})", "note",
       "unknown field (a money value has only value and currency)"},
      {R"({"price": {"value": {"$numberDecimal": "1"}, "value": {"$numberDecimal": "2"}, "currency": "USD"}})",
       "value", "field appears twice in the document"},
      {R"({"price": {"$numberDecimal": "119.99"}})", "", "expected object, got decimal"},
  };
  for (const auto& c : cases) {
    const odm::DecodeError e = decode_error<Money>(c.json);
    EXPECT_EQ(e.path(), c.path) << c.json;
    EXPECT_EQ(e.reason(), c.reason) << c.json;
  }
  // The enclosing codec adds the member's key: "price.value: ...".
  odm::DecodeError e = decode_error<Money>(R"({"price": {"value": 1.5, "currency": "USD"}})");
  e.prepend("price");
  EXPECT_STREQ(e.what(), "price.value: expected decimal, got double");
  e = decode_error<Money>(R"({"price": {"value": {"$numberDecimal": "1"}, "currency": "US"}})");
  e.prepend("price");
  EXPECT_EQ(std::string(e.what()).rfind("price.currency: invalid ISO 4217 currency code", 0), 0u) << e.what();
}

// --- ScaledAmount ----------------------------------------------------------------------

static_assert(ScaledAmount<100>::places == 2);
static_assert(ScaledAmount<1000>::places == 3);
static_assert(ScaledAmount<1>::places == 0);
static_assert(ScaledAmount<100>::from_units(1999).units() == 1999);

TEST(ScaledAmount, RefusesValuesFinerThanTheFactor) {
  EXPECT_EQ(ScaledAmount<100>(Decimal("19.99")).units(), 1999);
  EXPECT_EQ(ScaledAmount<100>(Decimal("19.990")).units(), 1999);  // the extra digit is a zero
  EXPECT_EQ(ScaledAmount<100>(Decimal("20")).units(), 2000);
  EXPECT_EQ(ScaledAmount<100>(Decimal("1E+2")).units(), 10000);
  EXPECT_EQ(ScaledAmount<100>(Decimal("-0.01")).units(), -1);
  EXPECT_EQ(ScaledAmount<1000>(Decimal("9.99")).units(), 9990);
  try {
    ScaledAmount<100>(Decimal("19.995"));
    ADD_FAILURE() << "19.995 was rounded into cents";
  } catch (const odm::ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("19.995"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("ScaledAmount<100>"), std::string::npos) << e.what();
  }
  EXPECT_THROW(ScaledAmount<1>(Decimal("0.5")), odm::ValueError);
  EXPECT_THROW(ScaledAmount<1000>(Decimal("0.0001")), odm::ValueError);
}

TEST(ScaledAmount, RefusesInt64Overflow) {
  EXPECT_EQ(ScaledAmount<100>(Decimal("92233720368547758.07")).units(), std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(ScaledAmount<100>(Decimal("-92233720368547758.08")).units(), std::numeric_limits<std::int64_t>::min());
  EXPECT_THROW(ScaledAmount<100>(Decimal("92233720368547758.08")), odm::ValueError);
  EXPECT_THROW(ScaledAmount<100>(Decimal("-92233720368547758.09")), odm::ValueError);
  EXPECT_THROW(ScaledAmount<100>(Decimal("1E+30")), odm::ValueError);
  EXPECT_THROW(ScaledAmount<100>(Decimal("1E+6111")), odm::ValueError);
}

TEST(ScaledAmount, ToDecimalIsExact) {
  EXPECT_TRUE(ScaledAmount<100>::from_units(1999).to_decimal().same_representation(Decimal("19.99")));
  EXPECT_EQ(ScaledAmount<100>::from_units(8000).to_decimal().to_string(), "80.00");
  EXPECT_EQ(ScaledAmount<1000>::from_units(9990).to_decimal().to_string(), "9.990");
  EXPECT_EQ(ScaledAmount<1>::from_units(-5).to_decimal().to_string(), "-5");
  EXPECT_EQ(ScaledAmount<100>::from_units(std::numeric_limits<std::int64_t>::min()).to_decimal().to_string(),
            "-92233720368547758.08");
  EXPECT_LT(ScaledAmount<100>::from_units(1), ScaledAmount<100>::from_units(2));
}

TEST(ScaledAmount, StoredAsInt64EvenWhenSmall) {
  for (std::int64_t units : {std::int64_t{0}, std::int64_t{5}, std::int64_t{1999}, std::int64_t{-1},
                             std::numeric_limits<std::int64_t>::max()}) {
    const BsonPtr doc = encode_price(ScaledAmount<100>::from_units(units));
    bson_iter_t it;
    ASSERT_TRUE(bson_iter_init_find(&it, doc.get(), "price"));
    EXPECT_EQ(bson_iter_type(&it), BSON_TYPE_INT64) << units;
    EXPECT_EQ(bson_iter_int64(&it), units);
  }
  const BsonPtr doc = encode_price(ScaledAmount<100>(Decimal("19.99")));
  EXPECT_SAME_BSON(doc.get(), R"({"price": {"$numberLong": "1999"}})");
}

TEST(ScaledAmount, TheGuidesFactor1000Shape) {
  // {price: 9990, currency: "USD"}: a ScaledAmount<1000> member beside a string member.
  BsonPtr doc(bson_new());
  odm::codec<ScaledAmount<1000>>::encode(doc.get(), "price", ScaledAmount<1000>(Decimal("9.99")));
  BSON_APPEND_UTF8(doc.get(), "currency", "USD");
  EXPECT_SAME_BSON(doc.get(), R"({"price": {"$numberLong": "9990"}, "currency": "USD"})");
}

TEST(ScaledAmount, DecodesInt64AndInt32Only) {
  EXPECT_EQ(decode_price<ScaledAmount<100>>(R"({"price": {"$numberLong": "1999"}})").units(), 1999);
  EXPECT_EQ(decode_price<ScaledAmount<100>>(R"({"price": 2495})").units(), 2495);  // int32 widens
  EXPECT_EQ(decode_price<ScaledAmount<100>>(R"({"price": {"$numberLong": "-9223372036854775808"}})").units(),
            std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(decode_error<ScaledAmount<100>>(R"({"price": 19.99})").reason(), "expected long, got double");
  EXPECT_EQ(decode_error<ScaledAmount<100>>(R"({"price": "1999"})").reason(), "expected long, got string");
  EXPECT_EQ(decode_error<ScaledAmount<100>>(R"({"price": {"$numberDecimal": "19.99"}})").reason(),
            "expected long, got decimal");
}

// --- DisplayMoney ----------------------------------------------------------------------

TEST(DisplayMoney, StoredShapeIsDisplayApproxCurrency) {
  const BsonPtr doc = encode_price(DisplayMoney(Money("9.99", "USD")));
  BsonPtr expected(bson_new());
  bson_t child;
  BSON_APPEND_DOCUMENT_BEGIN(expected.get(), "price", &child);
  BSON_APPEND_UTF8(&child, "display", "9.99");
  BSON_APPEND_DOUBLE(&child, "approx", 9.99);
  BSON_APPEND_UTF8(&child, "currency", "USD");
  bson_append_document_end(expected.get(), &child);
  EXPECT_EQ(canonical_json(doc.get()), canonical_json(expected.get()));
  EXPECT_TRUE(bson_equal(doc.get(), expected.get()));

  bson_iter_t it, approx;
  ASSERT_TRUE(bson_iter_init(&it, doc.get()));
  ASSERT_TRUE(bson_iter_find_descendant(&it, "price.approx", &approx));
  EXPECT_EQ(bson_iter_type(&approx), BSON_TYPE_DOUBLE);
  EXPECT_EQ(bson_iter_double(&approx), 9.99);
}

TEST(DisplayMoney, TheGuidesFee) {
  const DisplayMoney fee(Decimal("0.25"), "USD");
  EXPECT_EQ(fee.display(), "0.25");
  EXPECT_EQ(fee.approx(), 0.25);
  const DisplayMoney odd(Decimal("0.10"), "USD");
  EXPECT_EQ(odd.display(), "0.10");  // the exact value keeps its places
  EXPECT_EQ(odd.approx(), 0.1);
}

TEST(DisplayMoney, DecodesDisplayExactlyAndIgnoresApprox) {
  const DisplayMoney price =
      decode_price<DisplayMoney>(R"({"price": {"display": "80.00", "approx": 1.0, "currency": "USD"}})");
  EXPECT_TRUE(price.amount().same_representation(Decimal("80.00")));
  EXPECT_EQ(price.currency(), "USD");
  EXPECT_EQ(price.approx(), 80.0);  // recomputed from display, not the stored 1.0

  struct Case {
    const char* json;
    const char* path;
    const char* reason;
  };
  const Case cases[] = {
      {R"({"price": {"display": "9.99", "approx": "9.99", "currency": "USD"}})", "approx",
       "expected double, got string"},
      {R"({"price": {"display": "nine", "approx": 9.99, "currency": "USD"}})", "display",
       "\"nine\" is not a decimal number"},
      {R"({"price": {"display": 9.99, "approx": 9.99, "currency": "USD"}})", "display", "expected string, got double"},
      {R"({"price": {"display": "9.99", "currency": "USD"}})", "approx", "missing required field"},
      {R"({"price": {"display": "9.99", "approx": 9.99, "currency": "$"}})", "currency",
       "invalid ISO 4217 currency code \"$\" (expected three uppercase letters A-Z)"},
      {R"({"price": {"display": "9.99", "approx": 9.99, "currency": "USD", "value": 1}})", "value",
       "unknown field (a display money value has only display, approx and currency)"},
  };
  for (const auto& c : cases) {
    const odm::DecodeError e = decode_error<DisplayMoney>(c.json);
    EXPECT_EQ(e.path(), c.path) << c.json;
    EXPECT_EQ(e.reason(), c.reason) << c.json;
  }
}

TEST(DisplayMoney, ConvertsToAndFromMoneyExactly) {
  const Money money("80.00", "EUR");
  const DisplayMoney display = money;
  EXPECT_EQ(display.money(), money);
  EXPECT_TRUE(display.money().amount().same_representation(money.amount()));
  const BsonPtr doc = encode_price(display);
  bson_iter_t it;
  ASSERT_TRUE(bson_iter_init_find(&it, doc.get(), "price"));
  DisplayMoney back;
  odm::codec<DisplayMoney>::decode(it, back);
  EXPECT_EQ(back, display);
  EXPECT_TRUE(back.amount().same_representation(Decimal("80.00")));
}

// --- DecimalFromLegacy -----------------------------------------------------------------

TEST(MigratingDecimal, ReadsTheGuidesLegacyShapes) {
  using Price = DecimalFromLegacy<100>;
  struct Case {
    const char* json;
    const char* expected;
    bool legacy;
  };
  const Case cases[] = {
      {R"({"price": {"$numberLong": "1999"}})", "19.99", true},
      {R"({"price": {"$numberLong": "8000"}})", "80.00", true},
      {R"({"price": 2495})", "24.95", true},  // int32
      {R"({"price": "19.99"})", "19.99", true},
      {R"({"price": "80.00"})", "80.00", true},
      {R"({"price": {"$numberDecimal": "19.99"}})", "19.99", false},
      {R"({"price": {"$numberDecimal": "2.0990"}})", "2.0990", false},
  };
  for (const auto& c : cases) {
    const Price price = decode_price<Price>(c.json);
    EXPECT_EQ(price.value().to_string(), c.expected) << c.json;
    EXPECT_EQ(price.was_legacy(), c.legacy) << c.json;
  }
  EXPECT_EQ(decode_price<DecimalFromLegacy<1000>>(R"({"price": {"$numberLong": "9990"}})").value().to_string(),
            "9.990");
}

TEST(MigratingDecimal, AlwaysWritesDecimal128) {
  const auto price = decode_price<DecimalFromLegacy<100>>(R"({"price": {"$numberLong": "1999"}})");
  ASSERT_TRUE(price.was_legacy());
  const BsonPtr doc = encode_price(price);
  EXPECT_SAME_BSON(doc.get(), R"({"price": {"$numberDecimal": "19.99"}})");
  const BsonPtr from_string = encode_price(decode_price<DecimalFromLegacy<100>>(R"({"price": "80.00"})"));
  EXPECT_SAME_BSON(from_string.get(), R"({"price": {"$numberDecimal": "80.00"}})");
}

TEST(MigratingDecimal, RefusesDoubleAndNonDecimalStrings) {
  EXPECT_EQ(decode_error<DecimalFromLegacy<100>>(R"({"price": 19.99})").reason(),
            "expected decimal (or a legacy long, int or decimal string), got double");
  EXPECT_EQ(decode_error<DecimalFromLegacy<100>>(R"({"price": "19,99"})").reason(),
            "expected a string holding a decimal number: \"19,99\" is not a decimal number");
  EXPECT_EQ(decode_error<DecimalFromLegacy<100>>(R"({"price": "NaN"})").path(), "");
  EXPECT_EQ(decode_error<DecimalFromLegacy<100>>(R"({"price": {"$numberDecimal": "Infinity"}})").reason(),
            "expected a finite decimal, got Infinity");
}

TEST(MigratingDecimal, ValuesSetInCodeAreNotLegacy) {
  DecimalFromLegacy<100> price = Decimal("5.00");
  EXPECT_FALSE(price.was_legacy());
  EXPECT_EQ(price, Decimal("5"));
  const Decimal& as_decimal = price;
  EXPECT_EQ(as_decimal.to_string(), "5.00");
  price = decode_price<DecimalFromLegacy<100>>(R"({"price": {"$numberLong": "500"}})");
  EXPECT_TRUE(price.was_legacy());
  EXPECT_EQ(price, DecimalFromLegacy<100>(Decimal("5.00")));
  price = Decimal("6");
  EXPECT_FALSE(price.was_legacy());
}

}  // namespace
