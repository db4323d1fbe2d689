#include "walk.hpp"

#include <odm/bson/containers.hpp>
#include <odm/bson/document.hpp>
#include <odm/error.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstddef>
#include <cstring>
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

/// Milliseconds since the epoch of libbson's ISO-8601 text of a date ("%Y-%m-%dT%H:%M:%S",
/// then ".%03d" unless the milliseconds are 0, then "Z"), for years of any length.
bool parse_libbson_date(std::string_view text, std::int64_t& ms) noexcept {
  std::int64_t field[7] = {};  // year, month, day, hour, minute, second, millisecond
  constexpr char after[7] = {'-', '-', 'T', ':', ':', '.', 'Z'};
  std::size_t at = 0;
  for (int f = 0; f < 7; ++f) {
    const std::size_t start = at;
    while (at < text.size() && is_digit(text[at]) && at - start < 12) field[f] = field[f] * 10 + (text[at++] - '0');
    if (at == start || at == text.size()) return false;
    if (f == 5 && text[at] == 'Z') {  // no milliseconds
      ++at;
      break;
    }
    if (text[at++] != after[f]) return false;
  }
  if (at != text.size()) return false;
  // Days from 1970-01-01 of a proleptic Gregorian date (the civil-from-days inverse).
  const std::int64_t year = field[0] - (field[1] <= 2 ? 1 : 0);
  const std::int64_t era = year / 400;
  const std::int64_t year_of_era = year - era * 400;
  const std::int64_t day_of_year = (153 * (field[1] + (field[1] > 2 ? -3 : 9)) + 2) / 5 + field[2] - 1;
  const std::int64_t day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  const std::int64_t days = era * 146097 + day_of_era - 719468;
  ms = ((days * 86400 + field[3] * 3600 + field[4] * 60 + field[5]) * 1000) + field[6];
  return true;
}

/// libbson's relaxed Extended JSON, corrected where it does not read back:
/// - every finite double is rewritten in its shortest form (libbson 1.23 prints "%.20g":
///   7.3 as 7.2999999999999998224);
/// - a date after 9999-12-31 is written {"$date": {"$numberLong": "..."}}, as the
///   Extended JSON spec wants for dates outside years 1970-9999 (libbson writes a
///   five-digit ISO year that no reader, libbson's included, accepts).
///
/// A textual pass over libbson's own output, so that everything else (key and string
/// escaping, spacing, code with scope, errors) stays exactly libbson's (a bson_iter walk
/// handing every other value to libbson would have to redo its layout, and
/// bson_append_iter cuts JavaScript code at an embedded NUL). Why a token is a double
/// exactly when it is rewritten:
/// - outside string literals, libbson writes only punctuation, the keywords true, false and
///   null, and bare numbers; int32, int64, timestamps and $minKey/$maxKey are printed as
///   integers (%d, %PRId64, %u, 1), a finite double always with a '.' or an exponent;
///   non-finite doubles, dates, decimals and the rest are inside strings;
/// - libbson escapes every '"' and '\' inside a string, so a string ends at the first '"'
///   that does not follow a '\' escape;
/// - every value libbson writes follows a space ("[ ", " : ", ", "), so a number is only
///   taken when it starts after one (under a C locale whose decimal point is a comma,
///   libbson's "7,3" becomes two pieces that are both left alone);
/// - "%.20g" gives at least 17 significant digits, which read back as the very same double.
/// And a `"$date"` is a date's wrapper exactly when it is the first key of an object other
/// than the whole document and a scope: the walk before printing refuses any embedded
/// document of the user's whose first key is "$date".
std::string relaxed_fixups(std::string_view json) {
  std::string out;
  out.reserve(json.size());
  std::size_t i = 0;
  while (i < json.size()) {
    const char c = json[i];
    if (c == '"') {  // a key or string: copied as it is, escapes included
      std::size_t end = i + 1;
      while (end < json.size() && json[end] != '"') end += json[end] == '\\' ? 2 : 1;
      end = std::min(end + 1, json.size());
      const std::string_view token = json.substr(i, end - i);
      out.append(token);
      i = end;
      constexpr std::string_view date_value = " : \"";
      // (Not the first key of the whole document or of a scope: those are the user's own
      // keys, which the walk leaves alone, and a string there is not a date.)
      constexpr std::string_view wrapper = "{ \"$date\"";
      if (token == "\"$date\"" && out.ends_with(wrapper) && out.size() != wrapper.size() &&
          !out.ends_with("\"$scope\" : { \"$date\"") && json.substr(i).starts_with(date_value)) {
        const std::size_t text_start = i + date_value.size();
        const std::size_t text_end = json.find('"', text_start);
        const std::string_view text = json.substr(text_start, text_end - text_start);
        std::int64_t ms = 0;
        if (text_end != std::string_view::npos && text.find('-') > 4 && parse_libbson_date(text, ms)) {
          out += " : { \"$numberLong\" : \"" + std::to_string(ms) + "\" }";
          i = text_end + 1;
        }
      }
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

/// libbson 1.23's JSON reader writes a stale key (",", or a byte that is not UTF-8) for a
/// $code, $code with $scope or $dbPointer that is an array element. Whether an array in
/// `doc` (or in a scope in it) has a key other than its index. Recursive, but the reader's
/// own limit (json_reader_depth) bounds the depth.
bool has_misnumbered_array(const bson_t* doc, bool array) {
  bson_iter_t it;
  if (!bson_iter_init(&it, doc)) return false;
  for (std::uint32_t index = 0; bson_iter_next(&it); ++index) {
    if (array && detail::key_of(it) != detail::ArrayKey(index).view()) return true;
    bson_t child;
    if (detail::held_document(it, child) && has_misnumbered_array(&child, BSON_ITER_HOLDS_ARRAY(&it))) return true;
  }
  return false;
}

/// Appends the fields of `doc` to `out`, every array's keys set to its indexes.
void copy_renumbered(const bson_t* doc, bson_t* out, bool array) {
  bson_iter_t it;
  if (!bson_iter_init(&it, doc)) return;
  for (std::uint32_t index = 0; bson_iter_next(&it); ++index) {
    const detail::ArrayKey number(index);
    const std::string_view key = array ? number.view() : detail::key_of(it);
    const int key_length = static_cast<int>(key.size());
    bson_t from;
    if (!BSON_ITER_HOLDS_DOCUMENT(&it) && !BSON_ITER_HOLDS_ARRAY(&it) && !BSON_ITER_HOLDS_CODEWSCOPE(&it)) {
      bson_append_iter(out, key.data(), key_length, &it);
    } else if (!detail::held_document(it, from)) {
      throw JsonError("invalid Extended JSON: the reader wrote a corrupt document");
    } else if (BSON_ITER_HOLDS_CODEWSCOPE(&it)) {
      std::uint32_t code_length = 0;
      std::uint32_t scope_length = 0;
      const std::uint8_t* scope_data = nullptr;
      // The reader ends code at a NUL, so the C string is all of it.
      const char* code = bson_iter_codewscope(&it, &code_length, &scope_length, &scope_data);
      Document scope;
      copy_renumbered(&from, scope.get_mutable(), false);
      bson_append_code_with_scope(out, key.data(), key_length, code, scope.get());
    } else {
      const bool is_array = BSON_ITER_HOLDS_ARRAY(&it);
      bson_t to;
      if (is_array)
        bson_append_array_begin(out, key.data(), key_length, &to);
      else
        bson_append_document_begin(out, key.data(), key_length, &to);
      copy_renumbered(&from, &to, is_array);
      if (is_array)
        bson_append_array_end(out, &to);
      else
        bson_append_document_end(out, &to);
    }
  }
}

/// The empty heap documents this thread keeps for detail::new_document(). Trivially
/// destructible, so that a Document destroyed after SpareRelease ran (by a later
/// thread_local's or a static's destructor) still finds `closed` and keeps nothing.
struct SpareDocuments {
  static constexpr unsigned capacity = 8;  // an operation's filter, update, values and sort fit
  bson_t* kept[capacity];
  unsigned count;
  bool release_armed;
  bool closed;
};
constinit thread_local SpareDocuments spares{};

/// Destroys the kept documents when the thread ends.
struct SpareRelease {
  bool armed = false;
  ~SpareRelease() {
    while (spares.count > 0) bson_destroy(spares.kept[--spares.count]);
    spares.closed = true;
  }
};
thread_local SpareRelease spare_release;

/// The flags of a heap document (struct and bytes freed by bson_destroy), not read-only,
/// with no child open: from bson_new() (its bytes inside the struct) and from
/// bson_sized_new() (its bytes on the heap, as any document has once it grew or held a
/// child, which libbson moves out of the struct). Such a destroyed document is as good as
/// new once emptied; any other (static, read-only, over a buffer of someone else's) is not.
struct HeapFlags {
  std::uint32_t bytes_inside;
  std::uint32_t bytes_outside;
};

/// The head of libbson's private layout of a document whose bytes are on the heap
/// (bson_impl_alloc_t in bson-private.h, unchanged through libbson 1.x): the only place
/// that says how large its buffer is. Its length does not: a document emptied by
/// bson_reinit is 5 bytes long and keeps the buffer it grew to. Read by copying bytes,
/// and only once `layout_confirmed` has checked it against documents of known sizes.
struct HeapLayout {
  std::uint32_t flags;
  std::uint32_t len;
  bson_t* parent;
  std::uint32_t depth;
  std::uint8_t** buf;
  std::size_t* buflen;
  std::size_t offset;
  std::uint8_t* alloc;
  std::size_t alloclen;
};
static_assert(sizeof(HeapLayout) <= sizeof(bson_t));

HeapLayout layout_of(const bson_t* doc) noexcept {
  HeapLayout layout;
  std::memcpy(&layout, doc, sizeof layout);
  return layout;
}

/// Whether HeapLayout reads this libbson's documents right: a document made with a
/// buffer of 256 bytes, then grown past it, shows its own buffer, its length and the
/// buffer's size where HeapLayout expects them.
bool layout_confirmed(bson_t* doc) noexcept {
  const auto describes = [doc](std::size_t at_least) {
    const HeapLayout layout = layout_of(doc);
    const auto* base = reinterpret_cast<const unsigned char*>(doc);
    return layout.len == doc->len && layout.alloc == bson_get_data(doc) && layout.alloclen >= at_least &&
           reinterpret_cast<const unsigned char*>(layout.buf) == base + offsetof(HeapLayout, alloc) &&
           reinterpret_cast<const unsigned char*>(layout.buflen) == base + offsetof(HeapLayout, alloclen);
  };
  if (!describes(256) || layout_of(doc).alloclen != 256) return false;
  const std::string text(600, 'x');
  if (!bson_append_utf8(doc, "k", 1, text.data(), static_cast<int>(text.size()))) return false;
  return describes(doc->len);
}

struct HeapDocuments {
  HeapFlags flags;
  bool layout_known;  // HeapLayout can be read (when false, only documents with their bytes inside are kept)
};
const HeapDocuments& heap_documents() noexcept {
  static const HeapDocuments known = [] {
    bson_t* inside = bson_new();
    bson_t* outside = bson_sized_new(256);
    HeapDocuments read{{inside->flags, outside->flags}, false};
    read.layout_known = layout_confirmed(outside);
    bson_destroy(outside);
    bson_destroy(inside);
    return read;
  }();
  return known;
}

/// A document longer than this when destroyed is not kept, nor one whose buffer is larger
/// than twice this (libbson grows a buffer to the next power of two): a thread keeps at
/// most a few KiB. The buffer is asked about too, because a document emptied by
/// bson_reinit is short again and keeps the buffer of the longest it ever was.
constexpr std::uint32_t max_kept_length = 1024;
constexpr std::size_t max_kept_buffer = 2 * max_kept_length;

bool reusable(const bson_t* doc) noexcept {
  const HeapDocuments& heap = heap_documents();
  if (doc->len > max_kept_length) return false;
  if (doc->flags == heap.flags.bytes_inside) return true;
  return doc->flags == heap.flags.bytes_outside && heap.layout_known && layout_of(doc).alloclen <= max_kept_buffer;
}

}  // namespace

bson_t* detail::new_document() {
  if (spares.count > 0) return spares.kept[--spares.count];
  // The release is armed when a thread first makes a document, not when it first keeps
  // one: arming it while the program exits (a static's destructor, after the thread's
  // thread_local destructors ran) would register a destructor that never runs, and what
  // was kept then would never be freed.
  if (!spares.release_armed && !spares.closed) {
    spare_release.armed = true;  // constructs it in this thread, so that its destructor runs
    spares.release_armed = true;
  }
  return bson_new();
}

void detail::free_document(bson_t* doc) noexcept {
  if (spares.closed || !spares.release_armed || spares.count == SpareDocuments::capacity || !reusable(doc)) {
    bson_destroy(doc);
    return;
  }
  bson_reinit(doc);
  spares.kept[spares.count++] = doc;
}

bson_t* Document::copy(const bson_t* doc) {
  if (doc->len > max_kept_length || spares.count == 0) return bson_copy(doc);
  bson_t* out = detail::new_document();
  if (!bson_concat(out, doc)) {
    bson_destroy(out);
    return bson_copy(doc);
  }
  return out;
}

void detail::view_checked_bytes(std::span<const std::uint8_t> bytes, bson_t& view) {
  if (bytes.size() < 5 || bytes.size() > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
    throw DecodeError("malformed BSON: " + std::to_string(bytes.size()) + " bytes cannot hold a document");
  if (!bson_init_static(&view, bytes.data(), bytes.size()))
    throw DecodeError("malformed BSON: the length prefix does not match the " + std::to_string(bytes.size()) +
                      " bytes given");
  // Structure, UTF-8 of every key and string-like value, nesting: one loop, no recursion
  // (libbson's bson_validate recurses once per level, so a deep enough input overflows the stack).
  if (auto problem = walk_document(&view, 1, JsonCheck::none)) throw_problem<DecodeError>(std::move(*problem));
}

Document detail::copy_held_document(const bson_iter_t& it) {
  bson_t view;
  if (!held_document(it, view)) return Document();
  return Document::copy_of(&view);
}

Document Document::from_bytes(std::span<const std::uint8_t> bytes) {
  bson_t view;
  detail::view_checked_bytes(bytes, view);
  return Document(bson_copy(&view));
}

namespace {

/// The first key libbson's reader meets when from_json pads a text (see there): 16 bytes.
constexpr std::string_view reader_padding_key = "odm:reader:pad16";

/// Whether a text's reading is padded: it names a `$code` or a `$dbPointer` (which
/// libbson 1.23 gives a key from its key buffer), and its first key is no `$` key (a
/// padding before one would change how the reader reads it). `inside` is the position of
/// the first character after the opening brace that is no white space (npos: none).
bool pads_reading(std::string_view json, std::size_t inside) {
  if (json.find("\"$code\"") == std::string_view::npos && json.find("\"$dbPointer\"") == std::string_view::npos)
    return false;
  return inside == std::string_view::npos || json.compare(inside, 2, "\"$") != 0;
}

/// `message` (libbson's `Got parse error at "x", position N: ...`) with N moved back by
/// the `padding` bytes from_json added after the text's opening brace.
std::string without_padding(std::string message, std::size_t padding) {
  constexpr std::string_view marker = "position ";
  const std::size_t at = message.find(marker);
  if (at == std::string::npos) return message;
  const std::size_t digits = at + marker.size();
  std::size_t position = 0;
  const auto [end, failed] = std::from_chars(message.data() + digits, message.data() + message.size(), position);
  if (failed != std::errc() || position < padding) return message;
  return message.replace(digits, static_cast<std::size_t>(end - (message.data() + digits)),
                         std::to_string(position - padding));
}

/// Reads one document of `json` into `out`: libbson's return value (1 read, 0 none, -1 error).
int read_json(std::string_view json, Document& out, bson_error_t& error, bool& more) {
  struct ReaderFree {
    void operator()(bson_json_reader_t* reader) const noexcept { bson_json_reader_destroy(reader); }
  };
  std::unique_ptr<bson_json_reader_t, ReaderFree> reader(bson_json_data_reader_new(false, json.size() + 1));
  bson_json_data_reader_ingest(reader.get(), reinterpret_cast<const std::uint8_t*>(json.data()), json.size());
  const int read = bson_json_reader_read(reader.get(), out.get_mutable(), &error);
  if (read > 0) {
    bson_t rest = BSON_INITIALIZER;
    bson_error_t ignored;
    more = bson_json_reader_read(reader.get(), &rest, &ignored) != 0;
    bson_destroy(&rest);
  }
  return read;
}

}  // namespace

Document Document::from_json(std::string_view json) {
  // Exactly one JSON object: libbson would also take a top-level array ([1, 2] as
  // {"0": 1, "1": 2}) and ignore whatever follows the first document.
  const std::size_t first = json.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || json[first] != '{')
    throw JsonError("invalid Extended JSON: a document must be a JSON object ({...})");
  // libbson 1.23's reader names a $code or $dbPointer that is an array element with the
  // bytes of its key buffer, which after a short first key is fresh, uninitialized memory:
  // the same text failed now and then ("Error storing Javascript code"). A first key of 16
  // bytes makes the buffer big enough never to be replaced, so those bytes are always the
  // last key read and every reading of a text gives the same result (the array's elements
  // are numbered again below). The padding field is removed after the reading.
  const std::size_t inside = json.find_first_not_of(" \t\r\n", first + 1);
  const bool padded = pads_reading(json, inside);
  std::string padded_text;
  if (padded) {
    const bool empty = inside != std::string_view::npos && json[inside] == '}';
    padded_text.reserve(json.size() + reader_padding_key.size() + 8);
    padded_text.append(json.substr(0, first + 1)).append("\"").append(reader_padding_key);
    padded_text.append(empty ? "\": 0" : "\": 0, ");
    padded_text.append(json.substr(first + 1));
  }
  Document document;
  bson_error_t error;
  bool more = false;
  const int read = read_json(padded ? std::string_view(padded_text) : json, document, error, more);
  if (read < 0) {
    if (std::string_view(error.message).find("LEVELS_EXCEEDED") != std::string_view::npos)
      throw JsonError("invalid Extended JSON: nested deeper than the " + std::to_string(detail::json_reader_depth) +
                      " levels of objects and arrays libbson's reader accepts");
    std::string message = error.message;
    // A parse error's position is the text's own, not the padded text's.
    if (padded) message = without_padding(std::move(message), padded_text.size() - json.size());
    throw JsonError("invalid Extended JSON: " + message);
  }
  if (read == 0) throw JsonError("invalid Extended JSON: no document");
  if (more) throw JsonError("invalid Extended JSON: text follows the document");
  if (padded) {
    Document unpadded;
    bson_iter_t it;
    if (bson_iter_init(&it, document.get()) && bson_iter_next(&it))
      while (bson_iter_next(&it)) detail::check_append(bson_append_iter(unpadded.get_mutable(), nullptr, 0, &it));
    document = std::move(unpadded);
  }
  if (has_misnumbered_array(document.get(), false)) {
    Document renumbered;
    copy_renumbered(document.get(), renumbered.get_mutable(), false);
    document = std::move(renumbered);
  }
  // Whatever the reader made of the text, only a valid document leaves here.
  if (auto problem = detail::walk_document(document.get(), 1, detail::JsonCheck::none)) {
    std::string where;
    for (const std::string& step : problem->path) where += (where.empty() ? "" : ".") + step;
    throw JsonError("invalid Extended JSON: " + (where.empty() ? "" : where + ": ") + problem->reason);
  }
  return document;
}

std::string Document::to_json() const {
  if (auto problem = detail::walk_document(doc_, 1, detail::JsonCheck::relaxed))
    detail::throw_problem<EncodeError>(std::move(*problem));
  return relaxed_fixups(take_json(bson_as_relaxed_extended_json(doc_, nullptr)));
}

namespace detail {
std::string field_json(const Document& document, std::string_view key) {
  bson_iter_t it;
  if (!bson_iter_init_find_w_len(&it, document.get(), key.data(), static_cast<int>(key.size()))) return {};
  // As the one field of a document keyed "0", whose JSON is `{ "0" : <value> }`.
  Document one;
  check_append(bson_append_iter(one.get_mutable(), "0", 1, &it));
  const std::string json = relaxed_fixups(take_json(bson_as_relaxed_extended_json(one.get(), nullptr)));
  constexpr std::string_view head = "{ \"0\" : ";
  constexpr std::string_view tail = " }";
  if (json.size() < head.size() + tail.size() || json.compare(0, head.size(), head) != 0) return json;
  return json.substr(head.size(), json.size() - head.size() - tail.size());
}
}  // namespace detail

std::string Document::to_canonical_json() const {
  if (auto problem = detail::walk_document(doc_, 1, detail::JsonCheck::canonical))
    detail::throw_problem<EncodeError>(std::move(*problem));
  return take_json(bson_as_canonical_extended_json(doc_, nullptr));
}

}  // namespace odm
