#include "walk.hpp"

#include <odm/bson/codec.hpp>
#include <odm/bson/limits.hpp>
#include <odm/bson/utf8.hpp>
#include <odm/error.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace odm::detail {
namespace {

/// The keys libbson's Extended JSON reader (1.23, bson-json.c `_is_known_key`) takes as a
/// type wrapper when one is the first key of an embedded document: `{"$numberLong": "5"}`
/// reads back as an int64, `{"$date": 1}` as a date, `{"$oid": 1}` as an error. (The
/// reader also takes "$regex", "$options" and "$type", but those are query operators too:
/// a filter's `{"$regex": "^a", "$options": "i"}` must print, and reads back as a regular
/// expression, which MongoDB matches the same way; so they are not refused.)
constexpr std::array<std::string_view, 17> json_wrapper_keys = {
    "$regularExpression", "$code",       "$scope",      "$oid",          "$binary",    "$date",
    "$undefined",         "$maxKey",     "$minKey",     "$timestamp",    "$numberInt", "$numberLong",
    "$numberDouble",      "$numberDecimal", "$dbPointer", "$symbol",     "$uuid"};

bool is_json_wrapper_key(std::string_view key) noexcept {
  if (key.empty() || key.front() != '$') return false;
  for (std::string_view wrapper : json_wrapper_keys)
    if (key == wrapper) return true;
  return false;
}

/// The largest date relaxed Extended JSON writes as an ISO-8601 string: 9999-12-31T23:59:59.999Z.
constexpr std::int64_t last_iso_date_ms = 253402300799999;

/// How many levels of JSON objects a value of this type adds around itself in Extended
/// JSON (`{"$date": {"$numberLong": "1"}}` is 2); documents and arrays are counted as
/// levels of their own.
std::size_t json_wrapper_depth(const bson_iter_t& it, JsonCheck json) {
  const bool canonical = json == JsonCheck::canonical;
  switch (bson_iter_type(&it)) {
    case BSON_TYPE_DOUBLE: {
      // Relaxed: a finite double is a plain number, NaN and the infinities {"$numberDouble": ...}.
      return canonical || !std::isfinite(bson_iter_double(&it)) ? 1 : 0;
    }
    case BSON_TYPE_INT32:
    case BSON_TYPE_INT64: return canonical ? 1 : 0;
    case BSON_TYPE_DATE_TIME: {
      const std::int64_t ms = bson_iter_date_time(&it);
      return !canonical && ms >= 0 && ms <= last_iso_date_ms ? 1 : 2;
    }
    case BSON_TYPE_BINARY:
    case BSON_TYPE_REGEX:
    case BSON_TYPE_TIMESTAMP: return 2;
    case BSON_TYPE_DBPOINTER: return 3;  // {"$dbPointer": {"$ref": ..., "$id": {"$oid": ...}}}
    case BSON_TYPE_UNDEFINED:
    case BSON_TYPE_OID:
    case BSON_TYPE_CODE:
    case BSON_TYPE_SYMBOL:
    case BSON_TYPE_CODEWSCOPE:  // {"$code": ..., "$scope": {...}}: the scope is a level of its own
    case BSON_TYPE_DECIMAL128:
    case BSON_TYPE_MINKEY:
    case BSON_TYPE_MAXKEY: return 1;
    default: return 0;
  }
}

/// Regular expression options as libbson's reader keeps them: a sorted subset of "ilmsux"
/// without repeats (it sorts, drops repeats and unknown letters).
bool regex_options_read_back(std::string_view options) noexcept {
  constexpr std::string_view known = "ilmsux";
  std::size_t next = 0;
  for (const char c : options) {
    const std::size_t at = known.find(c, next);
    if (at == std::string_view::npos) return false;
    next = at + 1;
  }
  return true;
}

/// A Decimal128 whose coefficient has more than 34 digits (10^34 to 2^113 - 1): not
/// canonical, a zero to IEEE 754, but libbson prints its 35 digits, which no reader accepts.
bool is_overlong_decimal(const bson_iter_t& it) noexcept {
  bson_decimal128_t value;
  if (!bson_iter_decimal128(&it, &value)) return false;
  if (((value.high >> 61) & 3) == 3) return false;  // the other form, infinities and NaN: printed as libbson reads them
  const std::uint64_t high = value.high & 0x1FFFFFFFFFFFFull;
  constexpr std::uint64_t ten34_high = 0x1ED09BEAD87C0ull;  // 10^34 = ten34_high * 2^64 + ten34_low
  constexpr std::uint64_t ten34_low = 0x378D8E6400000000ull;
  return high > ten34_high || (high == ten34_high && value.low >= ten34_low);
}

struct Frame {
  bson_iter_t it;
  const std::uint8_t* data;  // the document's first byte (the iterator forgets it when it fails)
  std::size_t level;         // nesting level of this document
  std::size_t json_depth;    // JSON nesting of its object or array
  bool embedded;             // a document inside another (not the top level, an array or a scope)
  bool in_scope;             // inside the scope of a code with scope
  bool array;
};

class Walker {
 public:
  Walker(const std::uint8_t* origin, JsonCheck json) : origin_(origin), json_(json) { frames_.reserve(8); }

  std::optional<WalkProblem> document(const bson_t* doc, std::size_t level) {
    if (!open(bson_get_data(doc), doc->len, level, 1, false, false))
      return problem_at_frame("malformed BSON: not a document");
    return run();
  }

  /// One value (a field skipped by the decoder): its own checks, then what it holds.
  std::optional<WalkProblem> value(const bson_iter_t& it, std::size_t level) {
    path_prefix_ = true;
    Frame outer{it, it.raw, level, 1, false, false, false};
    frames_.push_back(outer);
    if (auto problem = element(frames_.back())) return problem;
    if (frames_.size() == 1) return std::nullopt;
    return run();
  }

 private:
  /// Pushes a frame for the document of `length` bytes at `data`; false when those bytes
  /// are not a document (length prefix, size, terminator).
  bool open(const std::uint8_t* data, std::size_t length, std::size_t level, std::size_t json_depth, bool embedded,
            bool in_scope, bool array = false) {
    std::uint32_t prefix = 0;
    if (length < 5) return false;
    std::memcpy(&prefix, data, 4);
    if (BSON_UINT32_FROM_LE(prefix) != length || data[length - 1] != 0) return false;
    Frame frame{};
    if (!bson_iter_init_from_data(&frame.it, data, length)) return false;
    frame.data = data;
    frame.level = level;
    frame.json_depth = json_depth;
    frame.embedded = embedded;
    frame.in_scope = in_scope;
    frame.array = array;
    frames_.push_back(frame);
    return true;
  }

  std::optional<WalkProblem> run() {
    while (frames_.size() > (path_prefix_ ? 1u : 0u)) {
      Frame& frame = frames_.back();
      const bool first = frame.it.off == 0;
      if (!bson_iter_next(&frame.it)) {
        if (frame.it.err_off != 0)
          return problem_at_frame("malformed BSON at byte " +
                                  std::to_string(static_cast<std::size_t>(frame.data - origin_) + frame.it.err_off));
        frames_.pop_back();
        continue;
      }
      const std::string_view key(bson_iter_key(&frame.it), bson_iter_key_len(&frame.it));
      if (!is_valid_utf8(key.data(), key.size())) return problem_at_frame("a field name is not valid UTF-8");
      if (json_ != JsonCheck::none && first && frame.embedded && is_json_wrapper_key(key))
        return problem_at_frame("a document whose first field is named \"" + std::string(key) +
                                  "\" would read back from Extended JSON as a value of another type");
      if (auto problem = element(frame)) return problem;
    }
    return std::nullopt;
  }

  /// Checks the value `frame.it` is on; a document it holds is pushed as a new frame.
  /// (`frame` may dangle once this pushes: nothing reads it after.)
  std::optional<WalkProblem> element(Frame& frame) {
    const bson_iter_t& it = frame.it;
    const bool json = json_ != JsonCheck::none;
    const std::size_t level = frame.level;
    const std::size_t json_depth = frame.json_depth;
    const bool in_scope = frame.in_scope;
    const bool in_array = frame.array;
    const bson_type_t type = bson_iter_type(&it);
    const bool code = type == BSON_TYPE_CODE || type == BSON_TYPE_CODEWSCOPE;
    if (json && in_scope && code)
      return problem_at_element("JavaScript code inside the scope of code with scope cannot be read back from "
                                "Extended JSON (libbson's reader makes it a document)");
    if (json && in_array && (code || type == BSON_TYPE_DBPOINTER))
      return problem_at_element(std::string(bson_type_name(type)) +
                                " in an array cannot be read back from Extended JSON (libbson's reader gives it "
                                "the key of an earlier field, or fails)");
    if (json && json_depth + json_wrapper_depth(it, json_) > json_reader_depth) return too_deep_for_json();
    switch (bson_iter_type(&it)) {
      case BSON_TYPE_UTF8:
      case BSON_TYPE_SYMBOL: {
        std::uint32_t length = 0;
        const char* text = bson_iter_type(&it) == BSON_TYPE_UTF8 ? bson_iter_utf8(&it, &length)
                                                                  : bson_iter_symbol(&it, &length);
        if (!is_valid_utf8(text, length)) return problem_at_element("string is not valid UTF-8");
        return std::nullopt;
      }
      case BSON_TYPE_CODE: {
        std::uint32_t length = 0;
        const char* code = bson_iter_code(&it, &length);
        return check_code(code, length);
      }
      case BSON_TYPE_REGEX: {
        const char* options = nullptr;
        const char* pattern = bson_iter_regex(&it, &options);
        if (!is_valid_utf8(pattern, std::strlen(pattern)) || !is_valid_utf8(options, std::strlen(options)))
          return problem_at_element("regular expression is not valid UTF-8");
        if (json && !regex_options_read_back(options))
          return problem_at_element("regular expression options \"" + std::string(options) +
                                    "\" are not a sorted selection of \"ilmsux\"; Extended JSON would read "
                                    "back other options");
        return std::nullopt;
      }
      case BSON_TYPE_DBPOINTER: {
        std::uint32_t length = 0;
        const char* collection = nullptr;
        const bson_oid_t* oid = nullptr;
        bson_iter_dbpointer(&it, &length, &collection, &oid);
        if (!is_valid_utf8(collection, length)) return problem_at_element("DBPointer namespace is not valid UTF-8");
        if (json && std::memchr(collection, 0, length) != nullptr)
          return problem_at_element("a DBPointer namespace with a NUL character cannot be read back from Extended JSON");
        return std::nullopt;
      }
      case BSON_TYPE_CODEWSCOPE: {
        std::uint32_t length = 0;
        std::uint32_t scope_length = 0;
        const std::uint8_t* scope = nullptr;
        const char* code = bson_iter_codewscope(&it, &length, &scope_length, &scope);
        if (code[length] != '\0') return problem_at_element("malformed BSON: code with scope is not NUL-terminated");
        if (auto problem = check_code(code, length)) return problem;
        if (level + 1 > max_depth) return too_deep();
        if (json && json_depth + 2 > json_reader_depth) return too_deep_for_json();
        if (!open(scope, scope_length, level + 1, json_depth + 2, false, true))
          return problem_at_element("malformed BSON: the scope of code with scope is not a document");
        return std::nullopt;
      }
      case BSON_TYPE_DOCUMENT:
      case BSON_TYPE_ARRAY: {
        const bool is_document = bson_iter_type(&it) == BSON_TYPE_DOCUMENT;
        if (level + 1 > max_depth) return too_deep();
        if (json && json_depth + 1 > json_reader_depth) return too_deep_for_json();
        std::uint32_t length = 0;
        const std::uint8_t* data = nullptr;
        if (is_document)
          bson_iter_document(&it, &length, &data);
        else
          bson_iter_array(&it, &length, &data);
        if (!open(data, length, level + 1, json_depth + 1, is_document, in_scope, !is_document))
          return problem_at_element("malformed BSON: nested document is corrupt");
        return std::nullopt;
      }
      case BSON_TYPE_DECIMAL128:
        if (json && is_overlong_decimal(it))
          return problem_at_element("a Decimal128 with more than 34 digits is not canonical and cannot be read back "
                                    "from Extended JSON");
        return std::nullopt;
      default: return std::nullopt;  // fixed-size values: bson_iter_next has checked their bounds
    }
  }

  std::optional<WalkProblem> check_code(const char* code, std::uint32_t length) {
    if (!is_valid_utf8(code, length)) return problem_at_element("JavaScript code is not valid UTF-8");
    if (json_ != JsonCheck::none && std::memchr(code, 0, length) != nullptr)
      return problem_at_element("JavaScript code with a NUL character cannot be read back from Extended JSON");
    return std::nullopt;
  }

  std::optional<WalkProblem> too_deep() {
    return problem_at_element("nested deeper than " + std::to_string(max_depth) +
                              " levels of documents and arrays (odm::max_depth, MongoDB's limit)");
  }
  std::optional<WalkProblem> too_deep_for_json() {
    return problem_at_element("nested deeper than the " + std::to_string(json_reader_depth) +
                              " levels of JSON objects and arrays that Extended JSON can be read back with "
                              "(type wrappers such as {\"$date\": ...} count)");
  }

  /// A problem with the value the innermost frame is on: its path ends with that key.
  std::optional<WalkProblem> problem_at_element(std::string reason) { return problem(std::move(reason), frames_.size()); }
  /// A problem with the innermost document itself: its path is the key that holds it.
  std::optional<WalkProblem> problem_at_frame(std::string reason) {
    return problem(std::move(reason), frames_.empty() ? 0 : frames_.size() - 1);
  }
  std::optional<WalkProblem> problem(std::string reason, std::size_t steps) {
    WalkProblem found{{}, std::move(reason)};
    // In value(), frame 0 is the skipped field itself: its key is the caller's to add.
    for (std::size_t i = path_prefix_ ? 1 : 0; i < steps; ++i)
      found.path.emplace_back(bson_iter_key(&frames_[i].it), bson_iter_key_len(&frames_[i].it));
    return found;
  }

  std::vector<Frame> frames_;
  const std::uint8_t* origin_;
  JsonCheck json_;
  bool path_prefix_ = false;
};

}  // namespace

std::optional<WalkProblem> walk_document(const bson_t* document, std::size_t level, JsonCheck json) {
  return Walker(bson_get_data(document), json).document(document, level);
}

std::optional<WalkProblem> walk_value(const bson_iter_t& it, std::size_t level) {
  return Walker(it.raw, JsonCheck::none).value(it, level);
}

void check_unread_value(const bson_iter_t& it, std::size_t depth) {
  // The value's field is in a document at level depth + 1.
  if (auto problem = walk_value(it, depth + 1)) throw_problem<DecodeError>(std::move(*problem));
}

void throw_too_deep(bool decoding) {
  const std::string reason =
      "nested deeper than " + std::to_string(max_depth) + " levels of documents and arrays (odm::max_depth, MongoDB's limit)";
  if (decoding) throw DecodeError(reason);
  throw EncodeError(reason);
}

}  // namespace odm::detail
