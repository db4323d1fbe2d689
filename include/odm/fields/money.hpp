#pragma once
// Money, in the three storage models of the reference guide, and the migration between them.
//
//   odm::Money              numeric model:      price: {value: NumberDecimal("119.99"), currency: "USD"}
//   odm::ScaledAmount<F>    scale-factor model: price: NumberLong(1999)           (F = 100: cents)
//                                               {price: 9990, currency: "USD"}    (F = 1000, plus a string member)
//   odm::DisplayMoney       non-numeric model:  price: {display: "9.99", approx: 9.99, currency: "USD"}
//   odm::DecimalFromLegacy<F>  reads NumberLong cents, a decimal string or a Decimal128;
//                              always writes Decimal128.
//
// None of them can be built from, or turned into, a double: that is a compile error.
//
// Migrating a collection to Decimal128 (the guide's clothes example: NumberLong(1999)
// cents, or "19.99" strings, becoming NumberDecimal("19.99")):
//
//   1. Lazy, in the application: declare the member as the migrating type,
//
//        struct Clothes { ObjectId id; std::string description; odm::DecimalFromLegacy<100> price; };
//
//      Old documents read fine (NumberLong(1999) -> 19.99, "80.00" -> 80.00 with its two
//      places, NumberDecimal as is; a double is still refused), and every save writes
//      NumberDecimal, so the collection converges as documents are rewritten.
//
//   2. One-off pass: read every document, and write back those whose field
//      was_legacy() (at the codec level: `auto doc = odm::from_bson<Clothes>(bson);`,
//      then `odm::to_bson(doc)` and replace the stored document;
//      examples/money_models.cpp shows the whole pass). To avoid re-reading everything,
//      select candidates on the server with `{price: {$type: ["long", "int", "string"]}}`. As the guide advises, test it on a
//      copy first; once no legacy shape is left, change the member to odm::Decimal
//      (or odm::Money), which reads Decimal128 only.

#include <bson/bson.h>

#include <odm/bson/codec.hpp>
#include <odm/bson/kind.hpp>
#include <odm/error.hpp>
#include <odm/fields/decimal.hpp>

#include <array>
#include <compare>
#include <concepts>
#include <cstdint>
#include <iosfwd>
#include <limits>
#include <string>
#include <string_view>

namespace odm {

namespace detail {

constexpr bool is_power_of_ten(std::int64_t value) noexcept {
  if (value < 1) return false;
  while (value % 10 == 0) value /= 10;
  return value == 1;
}

constexpr int log10_of(std::int64_t power_of_ten) noexcept {
  int places = 0;
  for (; power_of_ten > 1; power_of_ten /= 10) ++places;
  return places;
}

/// value × 10^places as an int64; ValueError when that is not a whole number (the value
/// is finer than the scale) or does not fit. `factor` only names the type in messages.
std::int64_t to_scaled_units(const Decimal& value, int places, std::int64_t factor);

/// Reads Decimal128 as is, an int64/int32 as units of 10^-legacy_places, or a string
/// holding a decimal. Returns whether the value had one of the legacy shapes.
bool decode_decimal_or_legacy(const bson_iter_t& it, int legacy_places, Decimal& out);

/// The stored shape of odm::Money, as the kind its codec states (the codec itself writes
/// the two fields directly).
struct MoneyFields {
  Decimal value;
  std::string currency;
};
/// The stored shape of odm::DisplayMoney.
struct DisplayMoneyFields {
  std::string display;
  double approx;
  std::string currency;
};

}  // namespace detail

// --- Money -----------------------------------------------------------------------------

/// An exact amount in an ISO 4217 currency.
///
/// Arithmetic: + and - need the same currency (odm::CurrencyMismatch otherwise). * and /
/// take an odm::Decimal or an integer; the product is exact (rounded half-even only past
/// 34 significant digits) and is NOT rounded to the currency's minor unit: how and when
/// to round (per line, per invoice, which mode) is a business rule, so call round(2, mode)
/// where it belongs. / rounds half-even to 34 significant digits; use odm::divide(money,
/// divisor, places, mode) to round once to the minor unit.
///
/// Comparison: == is false across currencies (5 USD is not 5 EUR, and containers and
/// defaulted == of models need a total ==). Ordering (<, <=, >, >=, <=>, compare()) has no
/// answer across currencies and throws odm::CurrencyMismatch.
class Money {
 public:
  /// Zero in "XXX", ISO 4217's code for "no currency" (decoding needs a default).
  Money() noexcept = default;
  /// ValueError unless `currency` is three uppercase ASCII letters.
  Money(Decimal amount, std::string_view currency) : amount_(amount), currency_(checked_code(currency)) {}
  /// Money("119.99", "USD"): the amount is parsed exactly (see Decimal(std::string_view)).
  Money(std::string_view amount, std::string_view currency) : Money(Decimal(amount), currency) {}

  template <std::floating_point F>
  Money(F, std::string_view) {
    static_assert(detail::dependent_false<F>,
                  "odm::Money cannot be built from a floating-point number: binary floating point cannot hold "
                  "amounts such as 0.10 exactly. Use a string, Money(\"19.99\", \"USD\"), or an odm::Decimal.");
  }
  /// Refused, with a message rather than overload noise.
  template <std::floating_point F>
  operator F() const {  // NOLINT(google-explicit-constructor)
    static_assert(detail::dependent_false<F>,
                  "odm::Money does not convert to a floating-point number; for display or approximate uses "
                  "write money.amount().to_double() explicitly.");
    return F{};
  }

  const Decimal& amount() const noexcept { return amount_; }
  std::string_view currency() const noexcept { return {currency_.data(), currency_.size()}; }

  /// Three uppercase ASCII letters (the shape of an ISO 4217 code; the list itself changes).
  static constexpr bool is_currency_code(std::string_view code) noexcept {
    if (code.size() != 3) return false;
    for (const char c : code)
      if (c < 'A' || c > 'Z') return false;
    return true;
  }

  /// The amount quantized to `places` decimals (2 for cents), same currency.
  Money round(int places, RoundingMode mode = RoundingMode::half_even) const {
    return Money(amount_.round(places, mode), currency_);
  }

  /// Numeric order of two amounts in one currency; CurrencyMismatch otherwise.
  std::weak_ordering compare(const Money& other) const {
    if (currency_ != other.currency_) [[unlikely]]
      throw_mismatch("compare", *this, other);
    return amount_ <=> other.amount_;
  }

  /// "119.99 USD"
  std::string to_string() const;

  friend Money operator+(const Money& a, const Money& b) {
    if (a.currency_ != b.currency_) [[unlikely]]
      throw_mismatch("add", a, b);
    return Money(a.amount_ + b.amount_, a.currency_);
  }
  friend Money operator-(const Money& a, const Money& b) {
    if (a.currency_ != b.currency_) [[unlikely]]
      throw_mismatch("subtract", a, b);
    return Money(a.amount_ - b.amount_, a.currency_);
  }
  Money operator-() const { return Money(-amount_, currency_); }

  friend Money operator*(const Money& m, const Decimal& factor) { return Money(m.amount_ * factor, m.currency_); }
  friend Money operator*(const Decimal& factor, const Money& m) { return Money(factor * m.amount_, m.currency_); }
  friend Money operator/(const Money& m, const Decimal& divisor) { return Money(m.amount_ / divisor, m.currency_); }
  // Integers spelled out, so `price * 3` does not compete with the built-in operators.
  template <detail::decimal_integer I>
  friend Money operator*(const Money& m, I factor) {
    return m * Decimal(factor);
  }
  template <detail::decimal_integer I>
  friend Money operator*(I factor, const Money& m) {
    return Decimal(factor) * m;
  }
  template <detail::decimal_integer I>
  friend Money operator/(const Money& m, I divisor) {
    return m / Decimal(divisor);
  }
  template <std::floating_point F>
  friend Money operator*(const Money&, F) {
    static_assert(detail::dependent_false<F>,
                  "odm::Money cannot be multiplied by a floating-point number; use an odm::Decimal or an integer");
    return {};
  }
  template <std::floating_point F>
  friend Money operator/(const Money&, F) {
    static_assert(detail::dependent_false<F>,
                  "odm::Money cannot be divided by a floating-point number; use an odm::Decimal or an integer");
    return {};
  }
  /// m ÷ divisor rounded once to `places` decimals.
  friend Money divide(const Money& m, const Decimal& divisor, int places, RoundingMode mode = RoundingMode::half_even) {
    return Money(odm::divide(m.amount_, divisor, places, mode), m.currency_);
  }

  Money& operator+=(const Money& other) { return *this = *this + other; }
  Money& operator-=(const Money& other) { return *this = *this - other; }
  Money& operator*=(const Decimal& factor) { return *this = *this * factor; }
  Money& operator/=(const Decimal& divisor) { return *this = *this / divisor; }

  friend bool operator==(const Money& a, const Money& b) noexcept {
    return a.currency_ == b.currency_ && a.amount_ == b.amount_;
  }
  /// Throws CurrencyMismatch for different currencies (see the class comment).
  friend std::weak_ordering operator<=>(const Money& a, const Money& b) { return a.compare(b); }

  friend std::ostream& operator<<(std::ostream& out, const Money& value);

 private:
  using Code = std::array<char, 3>;
  Money(Decimal amount, Code currency) noexcept : amount_(amount), currency_(currency) {}
  static Code checked_code(std::string_view currency);
  [[noreturn]] static void throw_mismatch(const char* verb, const Money& a, const Money& b);

  Decimal amount_;
  Code currency_{'X', 'X', 'X'};
};

// {value: NumberDecimal("119.99"), currency: "USD"}, in that order, as the guide stores a
// product price. Decoding is strict: value must be Decimal128, currency a valid code,
// and no other field may be present.
template <>
struct codec<Money> {
  using kind = kinds::document<detail::MoneyFields>;
  static void encode(bson_t* parent, std::string_view key, const Money& value);
  static void decode(const bson_iter_t& it, Money& out);
};

// --- ScaledAmount ----------------------------------------------------------------------

/// The scale-factor model: a whole number of 1/Factor units in an int64 (Factor 100:
/// cents, 19.99 is 1999; Factor 1000: tenths of a cent). Nothing is ever rounded: a value
/// finer than 1/Factor, or one beyond int64, is an odm::ValueError.
template <std::int64_t Factor>
class ScaledAmount {
  static_assert(detail::is_power_of_ten(Factor),
                "odm::ScaledAmount: Factor must be a power of ten >= 1 (1, 10, 100, 1000, ...)");

 public:
  static constexpr std::int64_t factor = Factor;
  /// Digits after the decimal point that one unit stands for (2 for Factor 100).
  static constexpr int places = detail::log10_of(Factor);

  constexpr ScaledAmount() noexcept = default;
  /// ScaledAmount<100>(Decimal("19.99")) holds 1999; Decimal("19.995") throws.
  explicit ScaledAmount(const Decimal& value) : units_(detail::to_scaled_units(value, places, Factor)) {}
  static constexpr ScaledAmount from_units(std::int64_t units) noexcept {
    ScaledAmount out;
    out.units_ = units;
    return out;
  }

  constexpr std::int64_t units() const noexcept { return units_; }
  /// Exact, with `places` decimals: 1999 at Factor 100 is 19.99 (exponent -2).
  Decimal to_decimal() const { return Decimal(units_, -places); }

  friend constexpr bool operator==(const ScaledAmount&, const ScaledAmount&) noexcept = default;
  friend constexpr auto operator<=>(const ScaledAmount&, const ScaledAmount&) noexcept = default;

 private:
  std::int64_t units_ = 0;
};

// BSON int64 whatever the magnitude (price: NumberLong(1999)), so every document holds
// one type for the field. An int32 on the wire (a shell writing `price: 1999`) widens exactly.
template <std::int64_t Factor>
struct codec<ScaledAmount<Factor>> {
  using kind = kinds::scalar<BSON_TYPE_INT64>;
  static void encode(bson_t* parent, std::string_view key, const ScaledAmount<Factor>& value) {
    detail::check_append(bson_append_int64(parent, key.data(), detail::key_length(key), value.units()));
  }
  static void decode(const bson_iter_t& it, ScaledAmount<Factor>& out) {
    switch (bson_iter_type(&it)) {
      case BSON_TYPE_INT64: out = ScaledAmount<Factor>::from_units(bson_iter_int64(&it)); break;
      case BSON_TYPE_INT32: out = ScaledAmount<Factor>::from_units(bson_iter_int32(&it)); break;
      default: detail::throw_unexpected_type(it, "long");
    }
  }
};

// --- DisplayMoney ----------------------------------------------------------------------

/// The non-numeric model: {display: "9.99", approx: 9.99, currency: "USD"}. `display` is
/// the truth; `approx` is the nearest double, written for server-side range queries and
/// sorts and never read back (a reader checks only that it is a double).
class DisplayMoney {
 public:
  DisplayMoney() noexcept = default;
  DisplayMoney(Money money) noexcept : money_(money) {}  // NOLINT(google-explicit-constructor): exact
  DisplayMoney(Decimal amount, std::string_view currency) : money_(amount, currency) {}

  const Money& money() const noexcept { return money_; }
  const Decimal& amount() const noexcept { return money_.amount(); }
  std::string_view currency() const noexcept { return money_.currency(); }
  /// What is stored as `display` (the Decimal128 string form: "9.99").
  std::string display() const { return money_.amount().to_string(); }
  /// What is stored as `approx`: the double nearest to the amount.
  double approx() const noexcept { return money_.amount().to_double(); }

  friend bool operator==(const DisplayMoney& a, const DisplayMoney& b) noexcept { return a.money_ == b.money_; }

 private:
  Money money_;
};

template <>
struct codec<DisplayMoney> {
  using kind = kinds::document<detail::DisplayMoneyFields>;
  static void encode(bson_t* parent, std::string_view key, const DisplayMoney& value);
  static void decode(const bson_iter_t& it, DisplayMoney& out);
};

// --- DecimalFromLegacy -----------------------------------------------------------------

/// A Decimal that reads the shapes older code stored (see the top of this file) and
/// always writes Decimal128: int64/int32 as a count of 1/LegacyFactor units
/// (NumberLong(1999) at 100 is 19.99), a string holding a decimal ("80.00" keeps its two
/// places), or Decimal128 as is. A double is refused like everywhere else.
template <std::int64_t LegacyFactor>
class DecimalFromLegacy {
  static_assert(detail::is_power_of_ten(LegacyFactor),
                "odm::DecimalFromLegacy: LegacyFactor must be a power of ten >= 1 (1, 10, 100, 1000, ...)");

 public:
  static constexpr int legacy_places = detail::log10_of(LegacyFactor);

  DecimalFromLegacy() noexcept = default;
  DecimalFromLegacy(const Decimal& value) noexcept : value_(value) {}  // NOLINT(google-explicit-constructor)
  template <std::floating_point F>
  DecimalFromLegacy(F) {  // NOLINT(google-explicit-constructor)
    static_assert(detail::dependent_false<F>,
                  "odm::DecimalFromLegacy cannot be built from a floating-point number; use an odm::Decimal");
  }

  const Decimal& value() const noexcept { return value_; }
  operator const Decimal&() const noexcept { return value_; }  // NOLINT(google-explicit-constructor)

  /// True when this value was decoded from a legacy shape (integer units or a string),
  /// i.e. the stored document still needs rewriting. A value assigned in code is not.
  bool was_legacy() const noexcept { return was_legacy_; }

  /// Compares the values only, not where they came from.
  friend bool operator==(const DecimalFromLegacy& a, const DecimalFromLegacy& b) noexcept {
    return a.value_ == b.value_;
  }
  friend bool operator==(const DecimalFromLegacy& a, const Decimal& b) noexcept { return a.value_ == b; }

 private:
  friend struct codec<DecimalFromLegacy>;
  Decimal value_;
  bool was_legacy_ = false;
};

template <std::int64_t LegacyFactor>
struct codec<DecimalFromLegacy<LegacyFactor>> {
  using kind = kinds::scalar<BSON_TYPE_DECIMAL128>;  // what it writes; it reads legacy shapes too
  static void encode(bson_t* parent, std::string_view key, const DecimalFromLegacy<LegacyFactor>& value) {
    codec<Decimal>::encode(parent, key, value.value());
  }
  static void decode(const bson_iter_t& it, DecimalFromLegacy<LegacyFactor>& out) {
    Decimal value;
    const bool legacy =
        detail::decode_decimal_or_legacy(it, DecimalFromLegacy<LegacyFactor>::legacy_places, value);
    out.value_ = value;
    out.was_legacy_ = legacy;
  }
};

// For std::variant: the BSON types each money type decodes from.
template <>
struct detail::variant_shape<Money> : detail::decoded_shape<Money, detail::type_bits(BSON_TYPE_DOCUMENT)> {};
template <>
struct detail::variant_shape<DisplayMoney> : detail::decoded_shape<DisplayMoney, detail::type_bits(BSON_TYPE_DOCUMENT)> {};
template <std::int64_t Factor>
struct detail::variant_shape<ScaledAmount<Factor>>
    : detail::decoded_shape<ScaledAmount<Factor>, detail::type_bits(BSON_TYPE_INT32, BSON_TYPE_INT64)> {};
template <std::int64_t LegacyFactor>
struct detail::variant_shape<DecimalFromLegacy<LegacyFactor>>
    : detail::decoded_shape<DecimalFromLegacy<LegacyFactor>, detail::type_bits(BSON_TYPE_DECIMAL128, BSON_TYPE_INT32,
                                                                               BSON_TYPE_INT64, BSON_TYPE_UTF8)> {};

}  // namespace odm
