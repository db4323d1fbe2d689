// odm::Decimal's arithmetic, parsing and printing. Intermediates are
// boost::multiprecision::cpp_int: products of two 34-digit coefficients, dividends
// shifted for 35-digit quotients and aligned sums all outgrow 128 bits, and an exact
// big integer keeps every rounding decision a single, explicit step.

#include <odm/fields/decimal.hpp>

#include <boost/multiprecision/cpp_int.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <ostream>
#include <system_error>

namespace odm {

namespace mp = boost::multiprecision;
using BigInt = mp::cpp_int;

namespace detail {

struct DecimalAccess {
  static BigInt coefficient(const Decimal& d) {
    BigInt c = d.hi_;
    c <<= 64;
    c |= d.lo_;
    return c;
  }
  // `c` must be < 10^34 and `exponent` within range: callers have normalized.
  static Decimal make(bool negative, const BigInt& c, std::int64_t exponent) {
    Decimal out;
    out.lo_ = static_cast<std::uint64_t>(c & std::numeric_limits<std::uint64_t>::max());
    out.hi_ = static_cast<std::uint64_t>(c >> 64);
    out.exponent_ = static_cast<int>(exponent);
    out.negative_ = negative;
    return out;
  }
  static Decimal with_sign(Decimal d, bool negative) {
    d.negative_ = negative;
    return d;
  }
};

/// 10^n. The powers arithmetic needs every day are computed once. Returned by value, so
/// that two calls in one expression never share storage (up to 10^38 a BigInt holds its
/// limbs inline: the copy allocates nothing). Outside the anonymous namespace for
/// tests/fields/decimal_test.cpp.
BigInt pow10(std::int64_t n) {
  static const std::array<BigInt, 80> table = [] {
    std::array<BigInt, 80> t;
    t[0] = 1;
    for (std::size_t i = 1; i < t.size(); ++i) t[i] = t[i - 1] * 10;
    return t;
  }();
  if (n < static_cast<std::int64_t>(table.size())) return table[static_cast<std::size_t>(n)];
  return mp::pow(BigInt(10), static_cast<unsigned>(n));
}

}  // namespace detail

namespace {

using Access = detail::DecimalAccess;
using detail::pow10;

constexpr std::int64_t emin = Decimal::min_exponent;
constexpr std::int64_t emax = Decimal::max_exponent;
constexpr std::int64_t precision = Decimal::max_digits;

/// Decimal digits of c (1 for zero).
std::int64_t digit_count(const BigInt& c) {
  if (c == 0) return 1;
  // log10(2) estimate from the bit length, off by at most one.
  const auto bits = static_cast<std::int64_t>(mp::msb(c)) + 1;
  std::int64_t estimate = static_cast<std::int64_t>(static_cast<double>(bits - 1) * 0.30102999566398120) + 1;
  if (c >= pow10(estimate)) ++estimate;
  return estimate;
}

[[noreturn]] void throw_overflow() {
  throw ValueError("decimal overflow: the result is beyond Decimal128's largest finite value "
                   "(9.999999999999999999999999999999999E+6144)");
}

[[noreturn]] void throw_underflow() {
  throw ValueError("decimal underflow: the result has digits below Decimal128's smallest exponent (1E-6176) "
                   "and cannot be held without loss");
}

/// Whether dividing by a divisor with quotient q and remainder r (0 <= r < divisor)
/// rounds the magnitude up, for a value of the given sign.
bool round_up(const BigInt& q, const BigInt& r, const BigInt& divisor, RoundingMode mode, bool negative) {
  if (r == 0) return false;
  switch (mode) {
    case RoundingMode::down: return false;
    case RoundingMode::up: return true;
    case RoundingMode::floor: return negative;
    case RoundingMode::ceiling: return !negative;
    default: break;
  }
  const BigInt twice = r * 2;
  if (twice != divisor) return twice > divisor;
  switch (mode) {
    case RoundingMode::half_up: return true;
    case RoundingMode::half_down: return false;
    default: return mp::bit_test(q, 0);  // half_even: up only from an odd digit
  }
}

/// c / 10^drop, rounded.
BigInt shift_right_rounded(const BigInt& c, std::int64_t drop, RoundingMode mode, bool negative) {
  const BigInt divisor = pow10(drop);
  BigInt q, r;
  mp::divide_qr(c, divisor, q, r);
  if (round_up(q, r, divisor, mode, negative)) ++q;
  return q;
}

/// The finite Decimal nearest (by `mode`) to ±c × 10^e. `mode == nullptr` means the
/// value must be held exactly (parsing, construction): any lost digit is a ValueError.
/// Digits beyond 34 are rounded; digits below 10^-6176 that are not zero are an
/// underflow error (rounding a tiny amount to zero silently is data loss); exponents
/// above 6111 are folded into the coefficient when it has room, else overflow.
Decimal finish(bool negative, BigInt c, std::int64_t e, const RoundingMode* mode) {
  if (c == 0) return Access::make(negative, c, std::clamp(e, emin, emax));  // a zero's exponent clamps exactly
  const std::int64_t nd = digit_count(c);
  const std::int64_t below = emin - e;  // digits that fall under the smallest exponent
  const std::int64_t drop = std::max({nd - precision, below, std::int64_t{0}});
  if (drop > 0) {
    if (below > 0) {
      if (below >= nd) throw_underflow();
      BigInt q, r;
      mp::divide_qr(c, pow10(below), q, r);
      if (r != 0) throw_underflow();
    }
    if (mode == nullptr) {
      BigInt q, r;
      mp::divide_qr(c, pow10(drop), q, r);
      if (r != 0)
        throw ValueError("the value has more than 34 significant digits; Decimal128 cannot hold it exactly");
      c = std::move(q);
    } else {
      c = shift_right_rounded(c, drop, *mode, negative);
    }
    e += drop;
    if (c == pow10(precision)) {  // 9.99…9 rounded up to 10.00…0: one digit too many
      c = pow10(precision - 1);
      ++e;
    }
  }
  if (e > emax) {
    const std::int64_t pad = e - emax;
    if (digit_count(c) + pad > precision) throw_overflow();
    c *= pow10(pad);
    e = emax;
  }
  return Access::make(negative, c, e);
}

bool equals_ignoring_case(std::string_view text, std::string_view lower) {
  if (text.size() != lower.size()) return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != lower[i]) return false;
  }
  return true;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

/// Writes the coefficient's digits (at most 34) at `out`, without allocating; returns the end.
char* write_digits(char* out, const Decimal& d) noexcept {
  if (d.coefficient_high() == 0) return std::to_chars(out, out + 20, d.coefficient_low()).ptr;
  // A high word means at least 2^64 > 10^19: split into a head (< 10^15) and 19 digits.
  constexpr std::uint64_t ten_to_19 = 10'000'000'000'000'000'000u;
  const mp::uint128_t c = (mp::uint128_t(d.coefficient_high()) << 64) | d.coefficient_low();
  out = std::to_chars(out, out + 20, static_cast<std::uint64_t>(c / ten_to_19)).ptr;
  char tail[20];
  char* const tail_end = std::to_chars(tail, tail + sizeof tail, static_cast<std::uint64_t>(c % ten_to_19)).ptr;
  const auto length = static_cast<std::size_t>(tail_end - tail);
  std::memset(out, '0', 19 - length);
  std::memcpy(out + (19 - length), tail, length);
  return out + 19;
}

std::string coefficient_digits(const Decimal& d) {
  char buffer[40];
  return std::string(buffer, write_digits(buffer, d));
}

}  // namespace

// --- construction --------------------------------------------------------------------

Decimal::Decimal(std::string_view text) {
  // Grammar (libbson's, minus its whitespace tolerance): [+-] digits [. digits] [(e|E) [+-] digits],
  // with at least one digit in the coefficient; "5." and ".5" are accepted as libbson does.
  std::size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
  const std::string_view rest = text.substr(i);
  if (equals_ignoring_case(rest, "nan") || equals_ignoring_case(rest, "snan") || equals_ignoring_case(rest, "inf") ||
      equals_ignoring_case(rest, "infinity"))
    throw ValueError(detail::quoted(text) + " is not a finite number; odm::Decimal holds finite values only");

  std::string digits;  // significant digits, leading zeros dropped
  std::int64_t fraction_digits = 0;
  bool any_digit = false;
  bool seen_point = false;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (is_digit(c)) {
      any_digit = true;
      if (!digits.empty() || c != '0') digits += c;
      if (seen_point) ++fraction_digits;
    } else if (c == '.' && !seen_point) {
      seen_point = true;
    } else {
      break;
    }
  }
  std::int64_t exponent = 0;
  bool exponent_ok = true;
  if (any_digit && i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    bool exponent_negative = false;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) exponent_negative = text[i++] == '-';
    exponent_ok = i < text.size() && is_digit(text[i]);
    for (; i < text.size() && is_digit(text[i]); ++i)  // saturates: finish() rejects it anyway
      exponent = std::min<std::int64_t>(exponent * 10 + (text[i] - '0'), std::int64_t{1} << 40);
    if (exponent_negative) exponent = -exponent;
  }
  if (!any_digit || !exponent_ok || i != text.size())
    throw ValueError(detail::quoted(text) + " is not a decimal number");

  // Trailing zeros are exact, so only the others count toward the 34-digit limit; and
  // the zeros beyond what 34 digits can hold need no big-integer work at all.
  const std::size_t significant = digits.find_last_not_of('0') + 1;  // 0 when digits is empty
  const std::int64_t trailing = static_cast<std::int64_t>(digits.size() - significant);
  if (significant > static_cast<std::size_t>(precision))
    throw ValueError(detail::quoted(text) +
                     " has more than 34 significant digits; Decimal128 cannot hold it exactly");
  const std::int64_t kept_zeros = std::min<std::int64_t>(trailing, precision - static_cast<std::int64_t>(significant));
  digits.resize(significant + static_cast<std::size_t>(kept_zeros));
  exponent += trailing - kept_zeros;
  const BigInt coefficient = digits.empty() ? BigInt(0) : BigInt(digits);
  try {
    *this = finish(negative, coefficient, exponent - fraction_digits, nullptr);
  } catch (const ValueError& e) {
    throw ValueError(detail::quoted(text) + ": " + e.what());
  }
}

Decimal Decimal::from_parts(bool negative, std::uint64_t coefficient_high, std::uint64_t coefficient_low,
                            std::int64_t exponent) {
  BigInt c = coefficient_high;
  c <<= 64;
  c |= coefficient_low;
  return finish(negative, std::move(c), exponent, nullptr);
}

// --- accessors and conversions ---------------------------------------------------------

int Decimal::digits() const noexcept {
  // Fixed-width arithmetic only: comparisons call this and must not allocate.
  if (hi_ == 0) {
    int n = 1;
    for (std::uint64_t v = lo_; v >= 10; v /= 10) ++n;
    return n;
  }
  // hi_ != 0 means at least 2^64 > 10^19: 20 digits or more.
  const mp::uint128_t c = (mp::uint128_t(hi_) << 64) | lo_;
  mp::uint128_t power = 10'000'000'000'000'000'000u;  // 10^19
  int n = 20;
  for (power *= 10u; n < precision && c >= power; power *= 10u) ++n;
  return n;
}

std::string Decimal::to_string() const {
  // The IEEE to-scientific-string rules, as libbson implements them.
  const std::string d = coefficient_digits(*this);
  const auto n = static_cast<std::int64_t>(d.size());
  const std::int64_t e = exponent_;
  const std::int64_t adjusted = n - 1 + e;
  std::string out;
  if (negative_) out += '-';
  if (adjusted < -6 || e > 0) {
    out += d[0];
    if (n > 1) {
      out += '.';
      out.append(d, 1);
    }
    out += 'E';
    out += adjusted < 0 ? '-' : '+';
    out += std::to_string(adjusted < 0 ? -adjusted : adjusted);
  } else if (e == 0) {
    out += d;
  } else {
    const std::int64_t point = n + e;  // digits before the decimal point
    if (point > 0) {
      out.append(d, 0, static_cast<std::size_t>(point));
      out += '.';
      out.append(d, static_cast<std::size_t>(point));
    } else {
      out += "0.";
      out.append(static_cast<std::size_t>(-point), '0');
      out += d;
    }
  }
  return out;
}

double Decimal::to_double() const noexcept {
  // "<digits>e<exponent>" has no decimal point, so no locale can change its meaning,
  // and from_chars rounds correctly to the nearest double.
  char buffer[64];
  char* const digits_end = write_digits(buffer, *this);
  *digits_end = 'e';
  char* const end = std::to_chars(digits_end + 1, buffer + sizeof buffer, exponent_).ptr;  // <= 41 chars in all
  double value = 0.0;
  if (std::from_chars(buffer, end, value).ec == std::errc::result_out_of_range) {
    const std::int64_t adjusted = (digits_end - buffer) - 1 + exponent_;
    value = adjusted > 0 ? HUGE_VAL : 0.0;
  }
  return negative_ ? -value : value;
}

std::ostream& operator<<(std::ostream& out, const Decimal& value) { return out << value.to_string(); }

// --- comparison ------------------------------------------------------------------------

int Decimal::compare(const Decimal& a, const Decimal& b) noexcept {
  const int sa = a.sign();
  const int sb = b.sign();
  if (sa != sb) return sa < sb ? -1 : 1;
  if (sa == 0) return 0;
  // Same sign, both non-zero: compare magnitudes by their leading digit's position first.
  const int da = a.digits();
  const int db = b.digits();
  const int adjusted_a = da + a.exponent_;
  const int adjusted_b = db + b.exponent_;
  int magnitude;
  if (adjusted_a != adjusted_b) {
    magnitude = adjusted_a < adjusted_b ? -1 : 1;
  } else {
    // Same leading position: aligning the larger exponent's coefficient gives it the
    // other's digit count (<= 34), so both fit 128 bits and nothing allocates.
    mp::uint128_t ca = (mp::uint128_t(a.hi_) << 64) | a.lo_;
    mp::uint128_t cb = (mp::uint128_t(b.hi_) << 64) | b.lo_;
    for (int gap = a.exponent_ - b.exponent_; gap > 0; --gap) ca *= 10u;
    for (int gap = b.exponent_ - a.exponent_; gap > 0; --gap) cb *= 10u;
    magnitude = ca < cb ? -1 : (ca > cb ? 1 : 0);
  }
  return sa < 0 ? -magnitude : magnitude;
}

// --- arithmetic ------------------------------------------------------------------------

Decimal add(const Decimal& a, const Decimal& b, RoundingMode mode) {
  // IEEE: an exact zero sum is +0, or -0 when both operands are negative or when
  // rounding toward negative infinity.
  auto zero_sign = [&] { return a.sign_bit() == b.sign_bit() ? a.sign_bit() : mode == RoundingMode::floor; };
  if (a.is_zero() && b.is_zero())
    return finish(zero_sign(), BigInt(0), std::min(a.exponent(), b.exponent()), &mode);
  // The result's ideal exponent is the smaller one; an exact zero operand only lowers it.
  if (b.is_zero()) {
    if (b.exponent() >= a.exponent()) return a;
    // Move toward b's exponent as far as 34 digits allow (exact: appends zeros).
    const std::int64_t shift = std::min<std::int64_t>(a.exponent() - b.exponent(), precision - a.digits());
    return Access::make(a.sign_bit(), Access::coefficient(a) * pow10(shift), a.exponent() - shift);
  }
  if (a.is_zero()) return add(b, a, mode);

  const Decimal& x = a.exponent() >= b.exponent() ? a : b;  // the larger exponent
  const Decimal& y = a.exponent() >= b.exponent() ? b : a;
  const std::int64_t gap = static_cast<std::int64_t>(x.exponent()) - y.exponent();
  const std::int64_t k = std::max<std::int64_t>(0, 36 - x.digits());
  BigInt cx, cy;
  std::int64_t e;
  if (gap > k + 1 && y.digits() <= gap - k) {
    // y is smaller than one unit of x's 36th digit: it can only decide the rounding
    // direction, so a single sticky unit below that digit stands in for it (and keeps
    // the aligned numbers small when the exponents are thousands apart).
    cx = Access::coefficient(x) * pow10(k + 1);
    cy = 1;
    e = x.exponent() - k - 1;
  } else {
    cx = Access::coefficient(x) * pow10(gap);
    cy = Access::coefficient(y);
    e = y.exponent();
  }
  BigInt sum = x.sign_bit() ? BigInt(-cx) : cx;
  sum += y.sign_bit() ? BigInt(-cy) : cy;
  if (sum == 0) return finish(zero_sign(), BigInt(0), e, &mode);
  const bool negative = sum < 0;
  return finish(negative, mp::abs(sum), e, &mode);
}

Decimal subtract(const Decimal& a, const Decimal& b, RoundingMode mode) {
  return add(a, Access::with_sign(b, !b.sign_bit()), mode);
}

Decimal multiply(const Decimal& a, const Decimal& b, RoundingMode mode) {
  return finish(a.sign_bit() != b.sign_bit(), Access::coefficient(a) * Access::coefficient(b),
                static_cast<std::int64_t>(a.exponent()) + b.exponent(), &mode);
}

Decimal divide(const Decimal& a, const Decimal& b, RoundingMode mode) {
  if (b.is_zero()) throw ValueError("decimal division by zero");
  const bool negative = a.sign_bit() != b.sign_bit();
  const std::int64_t ideal = static_cast<std::int64_t>(a.exponent()) - b.exponent();
  if (a.is_zero()) return finish(negative, BigInt(0), ideal, &mode);
  // A quotient of 35 or 36 digits, plus a sticky last digit when inexact, so that
  // finish() rounds once and correctly.
  const std::int64_t shift = static_cast<std::int64_t>(b.digits()) - a.digits() + precision + 1;
  std::int64_t e = ideal - shift;
  BigInt q, r;
  if (shift >= 0)
    mp::divide_qr(BigInt(Access::coefficient(a) * pow10(shift)), Access::coefficient(b), q, r);
  else
    mp::divide_qr(Access::coefficient(a), BigInt(Access::coefficient(b) * pow10(-shift)), q, r);
  if (r != 0) {
    if (q % 5 == 0) q += 1;  // a last digit of 0 or 5 would look like an exact tie
  } else {
    while (e < ideal && q % 10 == 0) {  // exact: come back toward the ideal exponent
      q /= 10;
      ++e;
    }
  }
  return finish(negative, std::move(q), e, &mode);
}

Decimal divide(const Decimal& a, const Decimal& b, int places, RoundingMode mode) {
  if (b.is_zero()) throw ValueError("decimal division by zero");
  if (-static_cast<std::int64_t>(places) < emin || -static_cast<std::int64_t>(places) > emax)
    throw ValueError("cannot divide to " + std::to_string(places) + " decimal places: outside Decimal128's range");
  const bool negative = a.sign_bit() != b.sign_bit();
  if (a.is_zero()) return Access::make(negative, BigInt(0), -places);
  // q = a / b × 10^places, as the integer ca × 10^n / cb.
  const std::int64_t n = static_cast<std::int64_t>(a.exponent()) - b.exponent() + places;
  const std::int64_t estimate = static_cast<std::int64_t>(a.digits()) - b.digits() + n;  // q's digits, ±1
  if (estimate > precision + 1)
    throw ValueError("the quotient needs more than 34 digits at " + std::to_string(places) + " decimal places");
  BigInt q, r, divisor;
  if (estimate < -2) {
    // The quotient is below a hundredth of one unit: only the rounding mode decides.
    q = 0;
    r = 1;
    divisor = 1000;
  } else {
    BigInt dividend = Access::coefficient(a);
    divisor = Access::coefficient(b);
    if (n >= 0)
      dividend *= pow10(n);
    else
      divisor *= pow10(-n);
    mp::divide_qr(dividend, divisor, q, r);
  }
  if (round_up(q, r, divisor, mode, negative)) ++q;
  if (q >= pow10(precision))
    throw ValueError("the quotient needs more than 34 digits at " + std::to_string(places) + " decimal places");
  return Access::make(negative, q, -places);
}

Decimal Decimal::round(int places, RoundingMode mode) const {
  const std::int64_t target = -static_cast<std::int64_t>(places);
  if (target < emin || target > emax)
    throw ValueError("cannot round to " + std::to_string(places) + " decimal places: outside Decimal128's range");
  if (target == exponent_) return *this;
  if (is_zero()) return Access::make(negative_, BigInt(0), target);
  BigInt c = Access::coefficient(*this);
  if (target < exponent_) {
    const std::int64_t pad = exponent_ - target;
    if (digits() + pad > precision)
      throw ValueError(to_string() + " rounded to " + std::to_string(places) +
                       " decimal places needs more than 34 digits");
    c *= pow10(pad);
  } else {
    const std::int64_t drop = target - exponent_;
    if (drop > digits() + 1)
      c = round_up(BigInt(0), BigInt(c == 0 ? 0 : 1), BigInt(1000), mode, negative_) ? 1 : 0;
    else
      c = shift_right_rounded(c, drop, mode, negative_);
    if (c >= pow10(precision))
      throw ValueError(to_string() + " rounded to " + std::to_string(places) +
                       " decimal places needs more than 34 digits");
  }
  return Access::make(negative_, c, target);
}

}  // namespace odm
