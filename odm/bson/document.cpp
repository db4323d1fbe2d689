#include <odm/bson/document.hpp>
#include <odm/bson/utf8.hpp>
#include <odm/error.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>

namespace odm {
namespace {

struct BsonFree {
  void operator()(char* p) const noexcept { bson_free(p); }
};

/// Every key and string of a document (and of the documents in it) is strict UTF-8.
/// (bson_validate's own UTF-8 check misses strings in nested documents and accepts C0 80.)
bool all_utf8(const bson_t* document, std::size_t depth = 0) {
  if (depth > 200) return false;  // nesting deeper than any server accepts
  bson_iter_t it;
  if (!bson_iter_init(&it, document)) return false;
  while (bson_iter_next(&it)) {
    if (!detail::is_valid_utf8(bson_iter_key(&it), bson_iter_key_len(&it))) return false;
    switch (bson_iter_type(&it)) {
      case BSON_TYPE_UTF8: {
        std::uint32_t length = 0;
        const char* text = bson_iter_utf8(&it, &length);
        if (!detail::is_valid_utf8(text, length)) return false;
        break;
      }
      case BSON_TYPE_DOCUMENT:
      case BSON_TYPE_ARRAY: {
        std::uint32_t length = 0;
        const std::uint8_t* data = nullptr;
        if (bson_iter_type(&it) == BSON_TYPE_DOCUMENT)
          bson_iter_document(&it, &length, &data);
        else
          bson_iter_array(&it, &length, &data);
        bson_t child;
        if (!bson_init_static(&child, data, length) || !all_utf8(&child, depth + 1)) return false;
        break;
      }
      default: break;
    }
  }
  return it.err_off == 0;
}

std::string take_json(char* json) {
  if (json == nullptr) throw EncodeError("document cannot be written as Extended JSON");
  std::unique_ptr<char, BsonFree> owner(json);
  return std::string(json);
}

bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }
bool is_number_char(char c) noexcept {
  return is_digit(c) || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

/// Whether all of `token` is one finite double (std::from_chars: exact, locale-independent).
bool reads_as_finite_double(std::string_view token, double& value) noexcept {
  const char* const end = token.data() + token.size();
  const auto [parsed_to, error] = std::from_chars(token.data(), end, value);
  return error == std::errc() && parsed_to == end && std::isfinite(value);
}

/// The shortest text that reads back as the finite `value` (std::to_chars without a
/// precision), kept a *non-integer* JSON number as Relaxed Extended JSON wants for a double
/// (the spec's conversion table, github.com/mongodb/specifications source/extended-json/
/// extended-json.md: "Double [finite]" is "non-integer", a number with a fraction or an
/// exponent), so that it reads back as a double: libbson's convention, "1" -> "1.0",
/// "-0" -> "-0.0"; "1e+20" already has an exponent.
void append_shortest(std::string& out, double value) {
  std::array<char, 32> text{};  // the longest shortest double, -2.2250738585072014e-308, takes 24
  const auto [end, error] = std::to_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc()) throw EncodeError("a double cannot be written as Extended JSON");
  const std::string_view digits(text.data(), static_cast<std::size_t>(end - text.data()));
  out += digits;
  if (digits.find_first_not_of("-0123456789") == std::string_view::npos) out += ".0";
}

/// libbson's relaxed Extended JSON with every finite double rewritten in its shortest form
/// (libbson 1.23 prints "%.20g": 7.3 as 7.2999999999999998224).
///
/// A textual pass over libbson's own output, so that everything else (key and string
/// escaping, spacing, the "{ ... }" it prints past 200 levels, code with scope, errors)
/// stays exactly libbson's (a bson_iter walk handing every other value to libbson would
/// have to redo its layout and depth limit, and bson_append_iter cuts JavaScript code at an
/// embedded NUL). Why a token is a double exactly when it is rewritten:
/// - outside string literals, libbson writes only punctuation, the keywords true, false and
///   null, "..." (too deep), and bare numbers; int32, int64, timestamps and $minKey/$maxKey
///   are printed as integers (%d, %PRId64, %u, 1), a finite double always with a '.' or an
///   exponent; non-finite doubles, dates, decimals and the rest are inside strings;
/// - libbson escapes every '"' and '\' inside a string, so a string ends at the first '"'
///   that does not follow a '\' escape;
/// - every value libbson writes follows a space ("[ ", " : ", ", "), so a number is only
///   taken when it starts after one (under a C locale whose decimal point is a comma,
///   libbson's "7,3" becomes two pieces that are both left alone);
/// - "%.20g" gives at least 17 significant digits, which read back as the very same double.
std::string shorten_doubles(std::string_view json) {
  std::string out;
  out.reserve(json.size());
  std::size_t i = 0;
  while (i < json.size()) {
    const char c = json[i];
    if (c == '"') {  // a key or string: copied as it is, escapes included
      std::size_t end = i + 1;
      while (end < json.size() && json[end] != '"') end += json[end] == '\\' ? 2 : 1;
      end = std::min(end + 1, json.size());
      out.append(json.substr(i, end - i));
      i = end;
      continue;
    }
    if ((is_digit(c) || c == '-') && i > 0 && json[i - 1] == ' ') {
      std::size_t end = i;
      while (end < json.size() && is_number_char(json[end])) ++end;
      const std::string_view token = json.substr(i, end - i);
      double value = 0;
      if (token.find_first_of(".eE") != std::string_view::npos && reads_as_finite_double(token, value))
        append_shortest(out, value);
      else
        out.append(token);
      i = end;
      continue;
    }
    out += c;
    ++i;
  }
  return out;
}

}  // namespace

Document Document::from_bytes(std::span<const std::uint8_t> bytes) {
  if (bytes.size() < 5 || bytes.size() > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
    throw DecodeError("malformed BSON: " + std::to_string(bytes.size()) + " bytes cannot hold a document");
  bson_t view;
  if (!bson_init_static(&view, bytes.data(), bytes.size()))
    throw DecodeError("malformed BSON: the length prefix does not match the " + std::to_string(bytes.size()) +
                      " bytes given");
  std::size_t offset = 0;
  // UTF-8 of every key and string, and the structure of every nested document.
  if (!bson_validate(&view, BSON_VALIDATE_NONE, &offset))
    throw DecodeError("malformed BSON at byte " + std::to_string(offset));
  if (!all_utf8(&view)) throw DecodeError("malformed BSON: a key or string is not valid UTF-8");
  return Document(bson_copy(&view));
}

Document Document::from_json(std::string_view json) {
  // Exactly one JSON object: libbson would also take a top-level array ([1, 2] as
  // {"0": 1, "1": 2}) and ignore whatever follows the first document.
  const std::size_t first = json.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || json[first] != '{')
    throw JsonError("invalid Extended JSON: a document must be a JSON object ({...})");
  struct ReaderFree {
    void operator()(bson_json_reader_t* reader) const noexcept { bson_json_reader_destroy(reader); }
  };
  std::unique_ptr<bson_json_reader_t, ReaderFree> reader(bson_json_data_reader_new(false, json.size() + 1));
  bson_json_data_reader_ingest(reader.get(), reinterpret_cast<const std::uint8_t*>(json.data()), json.size());
  Document document;
  bson_error_t error;
  const int read = bson_json_reader_read(reader.get(), document.get_mutable(), &error);
  if (read < 0) throw JsonError(std::string("invalid Extended JSON: ") + error.message);
  if (read == 0) throw JsonError("invalid Extended JSON: no document");
  bson_t rest = BSON_INITIALIZER;
  const int more = bson_json_reader_read(reader.get(), &rest, &error);
  bson_destroy(&rest);
  if (more != 0) throw JsonError("invalid Extended JSON: text follows the document");
  return document;
}

std::string Document::to_json() const {
  return shorten_doubles(take_json(bson_as_relaxed_extended_json(doc_, nullptr)));
}

std::string Document::to_canonical_json() const {
  return take_json(bson_as_canonical_extended_json(doc_, nullptr));
}

}  // namespace odm
