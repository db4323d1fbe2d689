// The non-template parts of odm/fields/money.hpp: messages, validation and the codecs of
// the money sub-documents.

#include <odm/fields/money.hpp>

#include <cstdlib>
#include <ostream>
#include <utility>

namespace odm {

namespace {

[[noreturn]] void throw_at(std::string_view key, std::string reason) {
  detail::at_path(key, [&] { throw DecodeError(std::move(reason)); });
  std::abort();  // at_path rethrows: never reached
}

std::string_view key_of(const bson_iter_t& it) { return {bson_iter_key(&it), bson_iter_key_len(&it)}; }

std::string_view utf8_of(const bson_iter_t& it) {
  std::uint32_t length = 0;
  const char* text = bson_iter_utf8(&it, &length);
  return {text, length};
}

/// The `currency` field of a money sub-document.
std::string_view read_currency(const bson_iter_t& it) {
  std::string_view code;
  detail::at_path("currency", [&] {
    detail::expect_type(it, BSON_TYPE_UTF8, "string");
    code = utf8_of(it);
    if (!Money::is_currency_code(code))
      throw DecodeError("invalid ISO 4217 currency code " + detail::quoted(code) + " (expected three uppercase letters A-Z)");
  });
  return code;
}

/// Walks a money sub-document: `on_field(key, iter)` returns false for a key it does not
/// know. Duplicates and unknown fields are errors; `required` names every field that must appear.
template <std::size_t N, class OnField>
void decode_fields(const bson_iter_t& it, const std::array<std::string_view, N>& required, const char* what,
                   OnField&& on_field) {
  detail::expect_type(it, BSON_TYPE_DOCUMENT, "object");
  bson_iter_t child = detail::recurse(it);
  std::array<bool, N> seen{};
  std::size_t expected = 0;  // odm writes the fields in order: one comparison each
  while (detail::next(child)) {
    const std::string_view key = key_of(child);
    std::size_t index = N;
    if (expected < N && required[expected] == key)
      index = expected;
    else
      for (std::size_t i = 0; i < N; ++i)
        if (required[i] == key) index = i;
    if (index == N) throw_at(key, std::string("unknown field (") + what + ")");
    if (seen[index]) throw_at(key, "field appears twice in the document");
    seen[index] = true;
    expected = index + 1;
    on_field(index, child);
  }
  for (std::size_t i = 0; i < N; ++i)
    if (!seen[i]) throw_at(required[i], "missing required field");
}

}  // namespace

// --- Money -----------------------------------------------------------------------------

Money::Code Money::checked_code(std::string_view currency) {
  if (!is_currency_code(currency))
    throw ValueError("invalid ISO 4217 currency code " + detail::quoted(currency) + " (expected three uppercase letters A-Z)");
  return {currency[0], currency[1], currency[2]};
}

void Money::throw_mismatch(const char* verb, const Money& a, const Money& b) {
  throw CurrencyMismatch(std::string("cannot ") + verb + " amounts in different currencies: " +
                         std::string(a.currency()) + " and " + std::string(b.currency()));
}

std::string Money::to_string() const {
  std::string out = amount_.to_string();
  out += ' ';
  out.append(currency());
  return out;
}

std::ostream& operator<<(std::ostream& out, const Money& value) { return out << value.to_string(); }

void codec<Money>::encode(bson_t* parent, std::string_view key, const Money& value) {
  detail::check_encode_level();
  bson_t child;
  detail::check_append(bson_append_document_begin(parent, key.data(), detail::key_length(key), &child));
  codec<Decimal>::encode(&child, "value", value.amount());
  const std::string_view code = value.currency();
  detail::check_append(bson_append_utf8(&child, "currency", 8, code.data(), static_cast<int>(code.size())));
  detail::check_append(bson_append_document_end(parent, &child));
}

void codec<Money>::decode(const bson_iter_t& it, Money& out) {
  static constexpr std::array<std::string_view, 2> fields{"value", "currency"};
  Decimal amount;
  std::string_view code;
  decode_fields(it, fields, "a money value has only value and currency", [&](std::size_t index, const bson_iter_t& field) {
    if (index == 0)
      detail::at_path("value", [&] { codec<Decimal>::decode(field, amount); });
    else
      code = read_currency(field);
  });
  out = Money(amount, code);
}

// --- ScaledAmount ----------------------------------------------------------------------

std::int64_t detail::to_scaled_units(const Decimal& value, int places, std::int64_t factor) {
  const std::string type = "odm::ScaledAmount<" + std::to_string(factor) + ">";
  if (value.is_zero()) return 0;
  // The count of units is coefficient × 10^shift.
  const std::int64_t shift = static_cast<std::int64_t>(value.exponent()) + places;
  if (shift < 0) {
    // Digits finer than one unit are fine only when they are zeros (19.990 at 100).
    const Decimal whole = value.round(places, RoundingMode::down);
    if (whole != value)
      throw ValueError(value.to_string() + " has more than " + std::to_string(places) + " decimal places; " + type +
                       " holds whole 1/" + std::to_string(factor) + " units and does not round");
    return to_scaled_units(whole, places, factor);
  }
  const auto out_of_range = [&] {
    return ValueError(value.to_string() + " is out of range for " + type + " (an int64 count of units)");
  };
  if (value.digits() + shift > 19) throw out_of_range();  // >= 10^19 > INT64_MAX
  std::uint64_t magnitude = value.coefficient_low();      // < 10^19 fits 64 bits
  for (std::int64_t i = 0; i < shift; ++i) magnitude *= 10;
  const std::uint64_t limit = value.is_negative() ? std::uint64_t{1} << 63 : (std::uint64_t{1} << 63) - 1;
  if (magnitude > limit) throw out_of_range();
  return value.is_negative() ? static_cast<std::int64_t>(std::uint64_t{0} - magnitude)
                             : static_cast<std::int64_t>(magnitude);
}

// --- DisplayMoney ----------------------------------------------------------------------

void codec<DisplayMoney>::encode(bson_t* parent, std::string_view key, const DisplayMoney& value) {
  detail::check_encode_level();
  bson_t child;
  detail::check_append(bson_append_document_begin(parent, key.data(), detail::key_length(key), &child));
  const std::string display = value.display();
  detail::check_append(bson_append_utf8(&child, "display", 7, display.data(), static_cast<int>(display.size())));
  detail::check_append(bson_append_double(&child, "approx", 6, value.approx()));
  const std::string_view code = value.currency();
  detail::check_append(bson_append_utf8(&child, "currency", 8, code.data(), static_cast<int>(code.size())));
  detail::check_append(bson_append_document_end(parent, &child));
}

void codec<DisplayMoney>::decode(const bson_iter_t& it, DisplayMoney& out) {
  static constexpr std::array<std::string_view, 3> fields{"display", "approx", "currency"};
  Decimal amount;
  std::string_view code;
  decode_fields(it, fields, "a display money value has only display, approx and currency",
                [&](std::size_t index, const bson_iter_t& field) {
                  switch (index) {
                    case 0:
                      detail::at_path("display", [&] {
                        detail::expect_type(field, BSON_TYPE_UTF8, "string");
                        try {
                          amount = Decimal(utf8_of(field));
                        } catch (const ValueError& e) {
                          throw DecodeError(e.what());
                        }
                      });
                      break;
                    case 1:  // derived from display; only its type is checked
                      detail::at_path("approx", [&] { detail::expect_type(field, BSON_TYPE_DOUBLE, "double"); });
                      break;
                    default: code = read_currency(field); break;
                  }
                });
  out = DisplayMoney(Money(amount, code));
}

// --- DecimalFromLegacy -----------------------------------------------------------------

bool detail::decode_decimal_or_legacy(const bson_iter_t& it, int legacy_places, Decimal& out) {
  switch (bson_iter_type(&it)) {
    case BSON_TYPE_DECIMAL128: codec<Decimal>::decode(it, out); return false;
    case BSON_TYPE_INT64: out = Decimal(bson_iter_int64(&it), -legacy_places); return true;
    case BSON_TYPE_INT32: out = Decimal(bson_iter_int32(&it), -legacy_places); return true;
    case BSON_TYPE_UTF8:
      try {
        out = Decimal(utf8_of(it));
      } catch (const ValueError& e) {
        throw DecodeError(std::string("expected a string holding a decimal number: ") + e.what());
      }
      return true;
    default: detail::throw_unexpected_type(it, "decimal (or a legacy long, int or decimal string)");
  }
}

}  // namespace odm
