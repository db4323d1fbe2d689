// odm::Decimal: exact parsing and printing, numeric comparison, arithmetic and rounding,
// the BID conversion (checked against libbson for thousands of generated values) and the
// Decimal128 codec.

#include <odm/fields/decimal.hpp>

#include <boost/multiprecision/cpp_int.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace odm::detail {
boost::multiprecision::cpp_int pow10(std::int64_t n);  // odm/fields/decimal.cpp
}  // namespace odm::detail

namespace {

using odm::Decimal;
using odm::RoundingMode;

/// Owns a heap bson_t.
class BsonPtr {
 public:
  explicit BsonPtr(bson_t* doc) : doc_(doc) {}
  BsonPtr(const BsonPtr&) = delete;
  BsonPtr& operator=(const BsonPtr&) = delete;
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
  EXPECT_NE(doc, nullptr) << error.message;
  return BsonPtr(doc);
}

std::string canonical_json(const bson_t* doc) {
  char* json = bson_as_canonical_extended_json(doc, nullptr);
  std::string out = json;
  bson_free(json);
  return out;
}

bson_decimal128_t libbson_parse(const std::string& text) {
  bson_decimal128_t out;
  EXPECT_TRUE(bson_decimal128_from_string(text.c_str(), &out)) << text;
  return out;
}

std::string libbson_print(const bson_decimal128_t& value) {
  char buffer[BSON_DECIMAL128_STRING];
  bson_decimal128_to_string(&value, buffer);
  return buffer;
}

std::string s(const Decimal& d) { return d.to_string(); }

// --- strings ---------------------------------------------------------------------------

TEST(DecimalString, RoundTripKeepsTrailingZerosAndCohort) {
  EXPECT_EQ(s(Decimal("2.0990")), "2.0990");
  EXPECT_EQ(Decimal("2.0990").exponent(), -4);
  EXPECT_EQ(s(Decimal("2.099")), "2.099");
  EXPECT_EQ(s(Decimal("119.99")), "119.99");
  EXPECT_EQ(s(Decimal("80.00")), "80.00");
  EXPECT_EQ(s(Decimal("-0.10")), "-0.10");
  EXPECT_EQ(s(Decimal("0.00")), "0.00");
  EXPECT_EQ(s(Decimal("-0")), "-0");
  EXPECT_EQ(s(Decimal("+7")), "7");
}

TEST(DecimalString, ScientificFormFollowsLibbson) {
  EXPECT_EQ(s(Decimal("1E+3")), "1E+3");
  EXPECT_EQ(s(Decimal("1000")), "1000");
  EXPECT_EQ(s(Decimal("1.50e-2")), "0.0150");
  EXPECT_EQ(s(Decimal("0.0001")), "0.0001");
  EXPECT_EQ(s(Decimal("0.000001")), "0.000001");
  EXPECT_EQ(s(Decimal("0.0000001")), "1E-7");
  EXPECT_EQ(s(Decimal("1E-7")), "1E-7");
  EXPECT_EQ(s(Decimal("12.5E+2")), "1.25E+3");
  EXPECT_EQ(s(Decimal("0E+3")), "0E+3");
  EXPECT_EQ(s(Decimal(".5")), "0.5");
  EXPECT_EQ(s(Decimal("5.")), "5");
  for (const char* text : {"1E+3", "1.50e-2", "0.0001", "0.0000001", "-12.5E+2", "0E+3", "0.000001234", "123456E-20",
                           "-0.0", "1.000000000000000000000000000000000E+6144", ".5", "5."})
    EXPECT_EQ(s(Decimal(text)), libbson_print(libbson_parse(text))) << text;
}

TEST(DecimalString, RefusesWhatIsNotAFiniteDecimal) {
  for (const char* text : {"", "abc", "1.2.3", "1e", "1e+", "--1", "+-1", " 1", "1 ", "0x10", ".", "-", "1,5", "1_000",
                           "E5", "1e5.5", "١"})
    EXPECT_THROW(Decimal{std::string_view(text)}, odm::ValueError) << text;
  for (const char* text : {"NaN", "nan", "-NaN", "sNaN", "Infinity", "-inf", "+Inf"}) {
    try {
      Decimal{std::string_view(text)};
      ADD_FAILURE() << text << " was accepted";
    } catch (const odm::ValueError& e) {
      EXPECT_NE(std::string(e.what()).find("not a finite number"), std::string::npos) << e.what();
    }
  }
}

TEST(DecimalString, RefusesMoreThan34SignificantDigits) {
  EXPECT_THROW(Decimal("1.2345678901234567890123456789012345"), odm::ValueError);  // 35 digits
  EXPECT_THROW(Decimal("12345678901234567890123456789012345"), odm::ValueError);
  EXPECT_EQ(s(Decimal("1.23456789012345678901234567890123")), "1.23456789012345678901234567890123");  // 33
  EXPECT_EQ(s(Decimal("1234567890123456789012345678901234")), "1234567890123456789012345678901234");   // 34
  // Trailing zeros beyond 34 digits are dropped exactly, as libbson does.
  const char* long_one = "1.000000000000000000000000000000000000000";
  EXPECT_EQ(Decimal(long_one), Decimal(1));
  EXPECT_EQ(s(Decimal(long_one)), libbson_print(libbson_parse(long_one)));
  EXPECT_EQ(s(Decimal(long_one)), "1.000000000000000000000000000000000");
}

TEST(DecimalString, RangeClampsExactlyOrRefuses) {
  EXPECT_EQ(s(Decimal("1E+6111")), "1E+6111");
  EXPECT_EQ(s(Decimal("1E+6144")), "1.000000000000000000000000000000000E+6144");  // folded into the coefficient
  EXPECT_THROW(Decimal("1E+6145"), odm::ValueError);
  EXPECT_THROW(Decimal("1E+99999999999999999999"), odm::ValueError);
  EXPECT_EQ(s(Decimal("1E-6176")), "1E-6176");
  EXPECT_EQ(s(Decimal("10E-6177")), "1E-6176");  // trailing zero dropped exactly
  EXPECT_THROW(Decimal("1E-6177"), odm::ValueError);
  EXPECT_THROW(Decimal("1E-99999999999999999999"), odm::ValueError);
  EXPECT_EQ(s(Decimal("0E+9999")), "0E+6111");
  EXPECT_EQ(s(Decimal("0E-9999")), "0E-6176");
  for (const char* text : {"1E+6144", "10E-6177", "0E+9999", "0E-9999", "1000E-6179"})
    EXPECT_EQ(s(Decimal(text)), libbson_print(libbson_parse(text))) << text;
}

TEST(DecimalString, StreamsItsStringForm) {
  std::ostringstream out;
  out << Decimal("2.0990") << ' ' << Decimal("1E+3");
  EXPECT_EQ(out.str(), "2.0990 1E+3");
}

// --- construction and accessors --------------------------------------------------------

TEST(DecimalConstruction, FromIntegersExactly) {
  EXPECT_EQ(s(Decimal(0)), "0");
  EXPECT_EQ(s(Decimal(-42)), "-42");
  EXPECT_EQ(s(Decimal(std::numeric_limits<std::int64_t>::min())), "-9223372036854775808");
  EXPECT_EQ(s(Decimal(std::numeric_limits<std::uint64_t>::max())), "18446744073709551615");
  EXPECT_EQ(s(Decimal(static_cast<short>(-7))), "-7");
  EXPECT_EQ(s(Decimal(1999, -2)), "19.99");
  EXPECT_TRUE(Decimal(1999, -2).same_representation(Decimal("19.99")));
  EXPECT_EQ(s(Decimal(-5, 3)), "-5E+3");
  EXPECT_EQ(s(Decimal(1, 6112)), "1.0E+6112");  // 10 × 10^6111
  EXPECT_THROW(Decimal(1, 6146), odm::ValueError);
  EXPECT_EQ(s(Decimal(10, -6177)), "1E-6176");
  EXPECT_THROW(Decimal(1, -6177), odm::ValueError);
  const Decimal d = 25;  // implicit: an integer is exact
  EXPECT_EQ(d, Decimal("25.00"));
}

TEST(DecimalConstruction, FromParts) {
  const std::uint64_t high = 542101086242752u;  // 10^34 - 1 = high × 2^64 + low
  const std::uint64_t low = 4003012203950112767u;
  EXPECT_EQ(s(Decimal::from_parts(false, high, low, 0)), "9999999999999999999999999999999999");
  EXPECT_EQ(s(Decimal::from_parts(true, 0, 5, -1)), "-0.5");
  EXPECT_THROW(Decimal::from_parts(false, high, low + 2, 0), odm::ValueError);  // 10^34 + 1: 35 digits
  EXPECT_EQ(s(Decimal::from_parts(false, high, low + 1, 0)), "1.000000000000000000000000000000000E+34");
}

TEST(DecimalConstruction, Accessors) {
  const Decimal d("19.99");
  EXPECT_EQ(d.exponent(), -2);
  EXPECT_EQ(d.scale(), 2);
  EXPECT_EQ(d.coefficient<std::int64_t>(), 1999);
  EXPECT_EQ(d.digits(), 4);
  EXPECT_EQ(Decimal("1E+3").scale(), -3);
  EXPECT_EQ(Decimal(0).digits(), 1);
  EXPECT_EQ(Decimal("9999999999999999999").digits(), 19);
  EXPECT_EQ(Decimal("18446744073709551616").digits(), 20);  // 2^64: the first with a high word
  EXPECT_EQ(Decimal("99999999999999999999").digits(), 20);
  EXPECT_EQ(Decimal("100000000000000000000").digits(), 21);
  EXPECT_EQ(Decimal("1000000000000000000000000000000000").digits(), 34);
  const Decimal big("-9999999999999999999999999999999999");
  EXPECT_EQ(big.digits(), 34);
  EXPECT_EQ(big.coefficient<boost::multiprecision::uint128_t>(),
            boost::multiprecision::uint128_t("9999999999999999999999999999999999"));
  EXPECT_THROW(big.coefficient<std::int64_t>(), odm::ValueError);
  EXPECT_EQ(big.sign(), -1);
  EXPECT_TRUE(big.is_negative());
  EXPECT_EQ(s(big.abs()), "9999999999999999999999999999999999");
  EXPECT_EQ(Decimal("0.00").sign(), 0);
  EXPECT_TRUE(Decimal("-0.00").is_zero());
  EXPECT_FALSE(Decimal("-0.00").is_negative());
  EXPECT_TRUE(Decimal("-0.00").sign_bit());
  EXPECT_EQ(s(-Decimal("1.50")), "-1.50");
  EXPECT_EQ(s(-Decimal("-1.50")), "1.50");
  EXPECT_EQ(s(-Decimal("0.00")), "0.00");  // never "-0.00" from negation
}

TEST(DecimalConversion, ToDoubleIsNearest) {
  EXPECT_EQ(Decimal("0.1").to_double(), 0.1);
  EXPECT_EQ(Decimal("9.99").to_double(), 9.99);
  EXPECT_EQ(Decimal("-2.5").to_double(), -2.5);
  EXPECT_EQ(Decimal("0.3333333333333333333333333333333333").to_double(), 1.0 / 3.0);
  EXPECT_EQ(Decimal("123456789012345678").to_double(), 123456789012345678.0);
  EXPECT_EQ(Decimal("1E+400").to_double(), HUGE_VAL);
  EXPECT_EQ(Decimal("-1E+400").to_double(), -HUGE_VAL);
  EXPECT_EQ(Decimal("1E-400").to_double(), 0.0);
}

// --- comparison ------------------------------------------------------------------------

TEST(DecimalCompare, EqualityIsNumericAcrossCohorts) {
  EXPECT_EQ(Decimal("2.0990"), Decimal("2.099"));
  EXPECT_FALSE(Decimal("2.0990").same_representation(Decimal("2.099")));
  EXPECT_EQ(Decimal("1E+3"), Decimal(1000));
  EXPECT_EQ(Decimal("0.00"), Decimal("-0"));
  EXPECT_EQ(Decimal("0E+6111"), Decimal("0E-6176"));
  EXPECT_NE(Decimal("2.0991"), Decimal("2.099"));
  EXPECT_EQ(Decimal("19.99"), Decimal(1999, -2));
  EXPECT_TRUE(Decimal(5) == 5);
  EXPECT_TRUE(0 == Decimal("0.000"));
}

TEST(DecimalCompare, OrderingIsNumeric) {
  EXPECT_LT(Decimal("1.5"), Decimal("1.50001"));
  EXPECT_LT(Decimal("-1.50001"), Decimal("-1.5"));
  EXPECT_LT(Decimal("-0.001"), Decimal("0"));
  EXPECT_LT(Decimal("9E+2"), Decimal("1000.0"));
  EXPECT_GT(Decimal("1E+6111"), Decimal("9999999999999999999999999999999999E+6076"));
  EXPECT_LT(Decimal("1E-6176"), Decimal("1E-6175"));
  EXPECT_TRUE((Decimal("2.0990") <=> Decimal("2.099")) == 0);
  std::vector<Decimal> values{Decimal("10"), Decimal("-1"), Decimal("0.5"), Decimal("1E+1"), Decimal("-0.75"),
                              Decimal("3")};
  std::sort(values.begin(), values.end());
  std::vector<std::string> printed;
  for (const auto& v : values) printed.push_back(s(v));
  EXPECT_EQ(printed[0], "-1");
  EXPECT_EQ(printed[1], "-0.75");
  EXPECT_EQ(printed[2], "0.5");
  EXPECT_EQ(printed[3], "3");
  EXPECT_EQ(Decimal(printed[4]), Decimal(10));
  EXPECT_EQ(Decimal(printed[5]), Decimal(10));
}

// --- arithmetic ------------------------------------------------------------------------

TEST(DecimalArithmetic, ExactResultsKeepTheIdealExponent) {
  EXPECT_EQ(s(Decimal("0.1") + Decimal("0.2")), "0.3");
  EXPECT_EQ(s(Decimal("1.0") + Decimal("2.00")), "3.00");
  EXPECT_EQ(s(Decimal("1.00") - Decimal("0.01")), "0.99");
  EXPECT_EQ(s(Decimal("19.99") * 3), "59.97");
  EXPECT_EQ(s(Decimal("2.50") * Decimal("1.5")), "3.750");
  EXPECT_EQ(s(Decimal("-2") * Decimal("0.5")), "-1.0");
  EXPECT_EQ(s(Decimal("1E+3") + Decimal("1")), "1001");
  EXPECT_EQ(s(Decimal("5") + Decimal("0.00")), "5.00");
  EXPECT_EQ(s(Decimal("1.5") - Decimal("1.5")), "0.0");
  EXPECT_EQ(s(Decimal("-1.5") - Decimal("1.5")), "-3.0");
  Decimal total;
  for (int i = 0; i < 10; ++i) total += Decimal("0.10");
  EXPECT_EQ(s(total), "1.00");
}

TEST(DecimalArithmetic, RoundsTo34SignificantDigits) {
  EXPECT_EQ(s(Decimal(1) / Decimal(3)), "0.3333333333333333333333333333333333");
  EXPECT_EQ(s(Decimal(2) / Decimal(3)), "0.6666666666666666666666666666666667");
  EXPECT_EQ(s(Decimal("9999999999999999999999999999999999") + 1), "1.000000000000000000000000000000000E+34");
  const Decimal n("1234567890123456789012345678901234");
  EXPECT_EQ(s(n * 10), "1.234567890123456789012345678901234E+34");
  EXPECT_EQ(s(n + Decimal("0.5")), "1234567890123456789012345678901234");  // tie, even digit stays
  EXPECT_EQ(s(n + Decimal("0.50000001")), "1234567890123456789012345678901235");
  EXPECT_EQ(s(add(n, Decimal("0.5"), RoundingMode::half_up)), "1234567890123456789012345678901235");
  EXPECT_EQ(s(Decimal("1234567890123456789012345678901235") + Decimal("0.5")),
            "1234567890123456789012345678901236");  // tie, odd digit rounds up
  // Operands thousands of exponents apart: the small one only steers the rounding.
  EXPECT_EQ(s(Decimal("1E+6111") + Decimal("1E-6176")), "1.000000000000000000000000000000000E+6111");
  EXPECT_EQ(s(add(Decimal("1E+6111"), Decimal("1E-6176"), RoundingMode::up)),
            "1.000000000000000000000000000000001E+6111");
  EXPECT_EQ(s(add(Decimal("1E+6111"), Decimal("-1E-6176"), RoundingMode::down)),
            "9.999999999999999999999999999999999E+6110");
  EXPECT_EQ(s(Decimal("1E+100") + Decimal("0")), "1.000000000000000000000000000000000E+100");
}

TEST(DecimalArithmetic, RoundingModesOnPositiveAndNegativeTies) {
  const Decimal big("1234567890123456789012345678901234");
  struct Case {
    RoundingMode mode;
    const char* positive;  // big + 0.5
    const char* negative;  // -big - 0.5
  };
  const Case cases[] = {
      {RoundingMode::half_even, "1234567890123456789012345678901234", "-1234567890123456789012345678901234"},
      {RoundingMode::half_up, "1234567890123456789012345678901235", "-1234567890123456789012345678901235"},
      {RoundingMode::half_down, "1234567890123456789012345678901234", "-1234567890123456789012345678901234"},
      {RoundingMode::down, "1234567890123456789012345678901234", "-1234567890123456789012345678901234"},
      {RoundingMode::up, "1234567890123456789012345678901235", "-1234567890123456789012345678901235"},
      {RoundingMode::floor, "1234567890123456789012345678901234", "-1234567890123456789012345678901235"},
      {RoundingMode::ceiling, "1234567890123456789012345678901235", "-1234567890123456789012345678901234"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(s(add(big, Decimal("0.5"), c.mode)), c.positive) << static_cast<int>(c.mode);
    EXPECT_EQ(s(subtract(-big, Decimal("0.5"), c.mode)), c.negative) << static_cast<int>(c.mode);
    // The same ties reached by multiplication: 2469…469 × 0.5 = 1234…234.5
    EXPECT_EQ(s(multiply(Decimal("2469135780246913578024691357802469"), Decimal("0.5"), c.mode)), c.positive);
    EXPECT_EQ(s(multiply(Decimal("-2469135780246913578024691357802469"), Decimal("0.5"), c.mode)), c.negative);
  }
}

TEST(DecimalArithmetic, ExactZeroSumSign) {
  EXPECT_FALSE((Decimal("1.5") - Decimal("1.5")).sign_bit());
  EXPECT_TRUE(subtract(Decimal("1.5"), Decimal("1.5"), RoundingMode::floor).sign_bit());
  EXPECT_TRUE((Decimal("-0") + Decimal("-0")).sign_bit());
}

TEST(DecimalArithmetic, OverflowIsAnErrorNeverInfinity) {
  const Decimal max("9.999999999999999999999999999999999E+6144");
  EXPECT_THROW(max + max, odm::ValueError);
  EXPECT_THROW(max * 10, odm::ValueError);
  EXPECT_THROW(Decimal("1E+6144") * Decimal("10"), odm::ValueError);
  EXPECT_THROW(add(max, Decimal("1E+6111"), RoundingMode::half_even), odm::ValueError);  // rounds up past max
  EXPECT_EQ(max + 1, max);  // far below the last digit: rounds back to max
  EXPECT_EQ(s(Decimal("1E+6111") * 10), "1.0E+6112");
  EXPECT_THROW(Decimal("1E+3000") * Decimal("1E+3200"), odm::ValueError);
  EXPECT_THROW(max / Decimal("0.1"), odm::ValueError);
}

TEST(DecimalArithmetic, UnderflowIsAnErrorNeverSilentZero) {
  EXPECT_THROW(Decimal("1E-6176") / 2, odm::ValueError);
  EXPECT_THROW(Decimal("1E-6176") * Decimal("0.1"), odm::ValueError);
  EXPECT_THROW(Decimal("1E-3100") * Decimal("1E-3100"), odm::ValueError);
  EXPECT_EQ(s(Decimal("1E-3000") * Decimal("1E-3000")), "1E-6000");
  EXPECT_EQ(s(Decimal("1E-6176") * 1), "1E-6176");
  EXPECT_EQ(s(Decimal("2E-6176") / 2), "1E-6176");
  EXPECT_EQ(s(Decimal("0E-6176") * Decimal("1E-10")), "0E-6176");  // a zero's exponent clamps
}

TEST(DecimalArithmetic, Division) {
  EXPECT_THROW(Decimal(1) / Decimal("0.00"), odm::ValueError);
  EXPECT_THROW(divide(Decimal(1), Decimal(0), 2), odm::ValueError);
  EXPECT_EQ(s(Decimal(1) / Decimal(4)), "0.25");
  EXPECT_EQ(s(Decimal("1.00") / Decimal(2)), "0.50");
  EXPECT_EQ(s(Decimal(10) / Decimal(2)), "5");
  EXPECT_EQ(s(Decimal(-7) / Decimal(2)), "-3.5");
  EXPECT_EQ(s(Decimal(1) / Decimal(8)), "0.125");
  EXPECT_EQ(s(Decimal("1E+3") / Decimal(10)), "1E+2");
  EXPECT_EQ(s(Decimal("0.00") / Decimal(7)), "0.00");
  EXPECT_EQ(s(Decimal(-1) / Decimal(3)), "-0.3333333333333333333333333333333333");
  // The 35th digit is a 5 with more digits after it: not a tie, so it rounds up.
  EXPECT_EQ(s(Decimal(1) / Decimal(7)), "0.1428571428571428571428571428571429");
  EXPECT_EQ(s(Decimal(1) / Decimal(53)), "0.01886792452830188679245283018867925");
  EXPECT_EQ(s(divide(Decimal(-1), Decimal(3), RoundingMode::floor)), "-0.3333333333333333333333333333333334");
  EXPECT_EQ(s(divide(Decimal(100), Decimal(3), 2)), "33.33");
  EXPECT_EQ(s(divide(Decimal(2), Decimal(3), 2)), "0.67");
  EXPECT_EQ(s(divide(Decimal(2), Decimal(3), 2, RoundingMode::down)), "0.66");
  EXPECT_EQ(s(divide(Decimal(1), Decimal(8), 2)), "0.12");  // exact tie .125, half-even
  EXPECT_EQ(s(divide(Decimal(1), Decimal(8), 2, RoundingMode::half_up)), "0.13");
  EXPECT_EQ(s(divide(Decimal(10), Decimal(4), 0)), "2");
  EXPECT_EQ(s(divide(Decimal(1), Decimal("1E+40"), 2)), "0.00");
  EXPECT_EQ(s(divide(Decimal(1), Decimal("1E+40"), 2, RoundingMode::up)), "0.01");
  EXPECT_EQ(s(divide(Decimal(-1), Decimal("1E+40"), 2, RoundingMode::floor)), "-0.01");
  EXPECT_THROW(divide(Decimal("1E+40"), Decimal(3), 2), odm::ValueError);  // 43 digits at that scale
}

TEST(DecimalRounding, AllModesOnTiesAndNonTies) {
  struct Case {
    const char* value;
    const char* expected[7];  // half_even, half_up, half_down, down, up, floor, ceiling
  };
  const Case cases[] = {
      {"2.345", {"2.34", "2.35", "2.34", "2.34", "2.35", "2.34", "2.35"}},
      {"-2.345", {"-2.34", "-2.35", "-2.34", "-2.34", "-2.35", "-2.35", "-2.34"}},
      {"2.355", {"2.36", "2.36", "2.35", "2.35", "2.36", "2.35", "2.36"}},
      {"-2.355", {"-2.36", "-2.36", "-2.35", "-2.35", "-2.36", "-2.36", "-2.35"}},
      {"2.3451", {"2.35", "2.35", "2.35", "2.34", "2.35", "2.34", "2.35"}},
      {"-2.3449", {"-2.34", "-2.34", "-2.34", "-2.34", "-2.35", "-2.35", "-2.34"}},
      {"2.34", {"2.34", "2.34", "2.34", "2.34", "2.34", "2.34", "2.34"}},
      {"0.005", {"0.00", "0.01", "0.00", "0.00", "0.01", "0.00", "0.01"}},
  };
  const RoundingMode modes[] = {RoundingMode::half_even, RoundingMode::half_up, RoundingMode::half_down,
                                RoundingMode::down,      RoundingMode::up,      RoundingMode::floor,
                                RoundingMode::ceiling};
  for (const auto& c : cases)
    for (int m = 0; m < 7; ++m)
      EXPECT_EQ(s(Decimal(c.value).round(2, modes[m])), c.expected[m]) << c.value << " mode " << m;
  EXPECT_EQ(s(Decimal("2.345").round(2)), "2.34");  // the default is half-even
}

TEST(DecimalRounding, QuantizesToTheRequestedPlaces) {
  EXPECT_EQ(s(Decimal(7).round(2)), "7.00");
  EXPECT_EQ(s(Decimal("1E+3").round(0)), "1000");
  EXPECT_EQ(s(Decimal(123).round(-1)), "1.2E+2");
  EXPECT_EQ(s(Decimal("0.00").round(4)), "0.0000");
  EXPECT_EQ(s(Decimal("0.0000001").round(2, RoundingMode::up)), "0.01");
  EXPECT_EQ(s(Decimal("1E-6000").round(2)), "0.00");
  EXPECT_EQ(s(Decimal("9.999").round(2)), "10.00");
  EXPECT_THROW(Decimal("1E+33").round(2), odm::ValueError);  // 36 digits
  EXPECT_THROW(Decimal(1).round(7000), odm::ValueError);
}

// --- BID conversion, checked against libbson ---------------------------------------------

void expect_matches_libbson(const std::string& text) {
  SCOPED_TRACE(text);
  const bson_decimal128_t expected = libbson_parse(text);
  const Decimal parsed(text);
  const bson_decimal128_t bid = parsed.to_bson_decimal128();
  EXPECT_EQ(bid.high, expected.high);
  EXPECT_EQ(bid.low, expected.low);
  const Decimal decoded = Decimal::from_bson_decimal128(expected);
  EXPECT_TRUE(decoded.same_representation(parsed)) << s(decoded) << " vs " << s(parsed);
  EXPECT_EQ(s(decoded), libbson_print(expected));
  const bson_decimal128_t reparsed = libbson_parse(s(decoded));  // our string means the same to libbson
  EXPECT_EQ(reparsed.high, expected.high);
  EXPECT_EQ(reparsed.low, expected.low);
}

TEST(DecimalBid, ExtremesMatchLibbson) {
  for (const char* text :
       {"0", "-0", "0E-6176", "-0E-6176", "0E+6111", "1", "-1", "1E-6176", "-1E-6176", "1E+6111", "-1E+6111",
        "9999999999999999999999999999999999", "9999999999999999999999999999999999E+6111",
        "-9999999999999999999999999999999999E+6111", "9999999999999999999999999999999999E-6176",
        "9.999999999999999999999999999999999E+6144", "1E+6144", "1000E-6179", "0E+9999", "0E-9999",
        "18446744073709551616", "18446744073709551615", "0.1", "119.99",
        "2.0990", "2.099", "80.00", "-0.10", "1E+3", "1.50e-2", "0.0001", "0.0000001"})
    expect_matches_libbson(text);
}

TEST(DecimalBid, GeneratedValuesMatchLibbsonBothWays) {
  std::mt19937_64 random(20240229);
  auto uniform = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(random);
  };
  for (int i = 0; i < 3000; ++i) {
    const auto length = static_cast<int>(uniform(1, 34));
    std::string digits;
    for (int d = 0; d < length; ++d) digits += static_cast<char>('0' + uniform(d == 0 ? 1 : 0, 9));
    if (uniform(0, 9) == 0) digits.back() = '0';
    // Coefficient exponent: mostly anywhere, often at the ends of the range.
    std::int64_t exponent;
    switch (uniform(0, 5)) {
      case 0: exponent = Decimal::min_exponent + uniform(0, 3); break;
      case 1: exponent = Decimal::max_exponent - uniform(0, 3); break;
      case 2: exponent = uniform(-8, 2); break;
      default: exponent = uniform(Decimal::min_exponent, Decimal::max_exponent); break;
    }
    std::string text = uniform(0, 1) ? "-" : "";
    if (uniform(0, 4) == 0) text += "00";
    // Either "digitsE<exponent>" or a decimal point inside the digits with the exponent adjusted.
    const auto after_point = static_cast<int>(uniform(0, length));
    if (after_point > 0 && uniform(0, 1)) {
      text += digits.substr(0, static_cast<std::size_t>(length - after_point)) + "." +
              digits.substr(static_cast<std::size_t>(length - after_point));
      exponent += after_point;
    } else {
      text += digits;
    }
    if (exponent != 0 || uniform(0, 1)) text += (uniform(0, 1) ? "E" : "e") + std::to_string(exponent);
    expect_matches_libbson(text);
    if (HasFailure()) break;
  }
}

TEST(DecimalBid, RandomCanonicalBitPatternsRoundTrip) {
  std::mt19937_64 random(7);
  const boost::multiprecision::uint128_t limit("10000000000000000000000000000000000");
  for (int i = 0; i < 3000; ++i) {
    bson_decimal128_t bid;
    const std::uint64_t exponent = random() % 12288;  // biased
    bid.high = (random() & (std::uint64_t{1} << 63)) | (exponent << 49) | (random() & ((std::uint64_t{1} << 49) - 1));
    bid.low = random();
    const boost::multiprecision::uint128_t coefficient =
        (boost::multiprecision::uint128_t(bid.high & ((std::uint64_t{1} << 49) - 1)) << 64) | bid.low;
    if (coefficient >= limit) continue;  // libbson prints those as 35 digits; IEEE says zero
    const Decimal d = Decimal::from_bson_decimal128(bid);
    const bson_decimal128_t back = d.to_bson_decimal128();
    EXPECT_EQ(back.high, bid.high);
    EXPECT_EQ(back.low, bid.low);
    EXPECT_EQ(s(d), libbson_print(bid));
  }
}

TEST(DecimalBid, NonCanonicalCoefficientsAreZero) {
  // "11" combination form: the coefficient would be at least 2^113, more than 34 digits.
  bson_decimal128_t bid;
  bid.high = (std::uint64_t{3} << 61) | (std::uint64_t{6176 + 5} << 47) | 12345;
  bid.low = 99;
  Decimal d = Decimal::from_bson_decimal128(bid);
  EXPECT_TRUE(d.is_zero());
  EXPECT_EQ(d.exponent(), 5);
  EXPECT_EQ(s(d), libbson_print(bid));
  // Normal form with a coefficient of exactly 10^34.
  bid.high = (std::uint64_t{6176} << 49) | 542101086242752u;
  bid.low = 4003012203950112768u;
  d = Decimal::from_bson_decimal128(bid);
  EXPECT_TRUE(d.is_zero());
  EXPECT_EQ(d.exponent(), 0);
}

TEST(DecimalBid, NanAndInfinityAreRefused) {
  for (const char* text : {"NaN", "Infinity", "-Infinity"}) {
    const bson_decimal128_t bid = libbson_parse(text);
    try {
      Decimal::from_bson_decimal128(bid);
      ADD_FAILURE() << text << " was accepted";
    } catch (const odm::ValueError& e) {
      EXPECT_EQ(std::string(e.what()), std::string("expected a finite decimal, got ") + text);
    }
  }
}

// --- codec -----------------------------------------------------------------------------

TEST(DecimalCodec, StoresDecimal128) {
  BsonPtr doc(bson_new());
  odm::codec<Decimal>::encode(doc.get(), "price", Decimal("2.099"));
  bson_iter_t it;
  ASSERT_TRUE(bson_iter_init_find(&it, doc.get(), "price"));
  EXPECT_EQ(bson_iter_type(&it), BSON_TYPE_DECIMAL128);
  EXPECT_EQ(canonical_json(doc.get()), canonical_json(from_json(R"({"price": {"$numberDecimal": "2.099"}})").get()));
  Decimal back;
  odm::codec<Decimal>::decode(it, back);
  EXPECT_TRUE(back.same_representation(Decimal("2.099")));
}

TEST(DecimalCodec, DecodesTrailingZerosAndExtremes) {
  for (const char* text : {"80.00", "-0", "9.999999999999999999999999999999999E+6144", "1E-6176"}) {
    const std::string json = std::string(R"({"price": {"$numberDecimal": ")") + text + "\"}}";
    const BsonPtr doc = from_json(json.c_str());
    bson_iter_t it;
    ASSERT_TRUE(bson_iter_init_find(&it, doc.get(), "price"));
    Decimal out;
    odm::codec<Decimal>::decode(it, out);
    EXPECT_TRUE(out.same_representation(Decimal(text))) << text;
  }
}

TEST(DecimalCodec, RefusesDoubleAndNonFinite) {
  struct Case {
    const char* json;
    const char* message;
  };
  const Case cases[] = {
      {R"({"price": 2.099})", "expected decimal, got double"},
      {R"({"price": "2.099"})", "expected decimal, got string"},
      {R"({"price": {"$numberLong": "2"}})", "expected decimal, got long"},
      {R"({"price": {"$numberDecimal": "NaN"}})", "expected a finite decimal, got NaN"},
      {R"({"price": {"$numberDecimal": "-Infinity"}})", "expected a finite decimal, got -Infinity"},
  };
  for (const auto& c : cases) {
    const BsonPtr doc = from_json(c.json);
    bson_iter_t it;
    ASSERT_TRUE(bson_iter_init_find(&it, doc.get(), "price"));
    Decimal out;
    try {
      odm::codec<Decimal>::decode(it, out);
      ADD_FAILURE() << c.json << " was accepted";
    } catch (const odm::DecodeError& e) {
      EXPECT_EQ(std::string(e.what()), c.message);
    }
  }
}

// Two powers beyond the precomputed ones in one expression: each is its own value (they
// once shared one thread_local scratch, so the sum read 2 x 10^101 or 2 x 10^100).
TEST(DecimalArithmetic, LargePowersOfTenInOneExpressionAreIndependent) {
  using odm::detail::pow10;
  const boost::multiprecision::cpp_int ten = 10;
  EXPECT_EQ(pow10(100) + pow10(101), 11 * boost::multiprecision::pow(ten, 100));
  EXPECT_EQ(pow10(6144) / pow10(6143), 10);
  EXPECT_EQ(pow10(3) + pow10(200), 1000 + boost::multiprecision::pow(ten, 200));
}

}  // namespace
