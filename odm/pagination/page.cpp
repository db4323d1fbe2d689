#include <odm/pagination/page.hpp>

#include <odm/bson/containers.hpp>
#include <odm/bson/writer.hpp>

#include <bson/bson.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <span>

namespace odm {
namespace detail {

struct PageTokenAccess {
  static PageToken make(Document contents) { return PageToken(std::move(contents)); }
  static const Document& contents(const PageToken& token) noexcept { return token.contents_; }
};

namespace {

// ---- the token's text -------------------------------------------------------------

constexpr std::string_view base64_digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::string base64_of(std::span<const std::uint8_t> bytes) {
  std::string text;
  text.reserve((bytes.size() * 4 + 2) / 3);
  std::size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const std::uint32_t group = (std::uint32_t{bytes[i]} << 16) | (std::uint32_t{bytes[i + 1]} << 8) | bytes[i + 2];
    for (int shift = 18; shift >= 0; shift -= 6) text.push_back(base64_digits[(group >> shift) & 63]);
  }
  if (const std::size_t rest = bytes.size() - i; rest > 0) {
    std::uint32_t group = std::uint32_t{bytes[i]} << 16;
    if (rest == 2) group |= std::uint32_t{bytes[i + 1]} << 8;
    for (std::size_t k = 0; k <= rest; ++k) text.push_back(base64_digits[(group >> (18 - 6 * k)) & 63]);
  }
  return text;
}

[[noreturn]] void throw_not_a_token(const std::string& why) {
  throw ValueError("PageToken::parse: not a page token (" + why + "); pass back the text of a Page's next token, "
                   "unchanged");
}

std::vector<std::uint8_t> bytes_of_base64(std::string_view text) {
  if (text.size() > PageToken::max_text_size)
    throw_not_a_token(std::to_string(text.size()) + " characters, more than PageToken::max_text_size (" +
                      std::to_string(PageToken::max_text_size) + ")");
  if (text.size() % 4 == 1) throw_not_a_token("its length, " + std::to_string(text.size()) + ", is no base64 text's");
  std::vector<std::uint8_t> bytes;
  bytes.reserve(text.size() * 3 / 4);
  std::uint32_t group = 0;
  int bits = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const std::size_t digit = base64_digits.find(text[i]);
    if (digit == std::string_view::npos)
      throw_not_a_token("character " + std::to_string(i) + " is no URL-safe base64 digit (A-Z a-z 0-9 - _)");
    group = (group << 6) | static_cast<std::uint32_t>(digit);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes.push_back(static_cast<std::uint8_t>(group >> bits));
      group &= (1u << bits) - 1;
    }
  }
  if (group != 0) throw_not_a_token("its last character has bits set past the end of the data");
  return bytes;
}

// ---- the keys -----------------------------------------------------------------------

using Keys = std::vector<std::pair<std::string, Direction>>;

/// The sort's keys, made total by `_id` (ascending) unless the sort has it.
Keys total_order(const SortExpr& sort) {
  if (sort.opaque)
    throw ValueError("find_page: the sort is written by hand (Sort<T>::raw), so its keys cannot be checked; build it "
                     "with odm::sort(odm::asc(...), odm::desc(...))");
  Keys keys = sort.keys;
  if (std::none_of(keys.begin(), keys.end(), [](const auto& key) { return key.first == "_id"; }))
    keys.emplace_back("_id", Direction::ascending);
  return keys;
}

/// `+price`, `-_id`: the keys as the token stores them.
std::string signed_key(const std::pair<std::string, Direction>& key) {
  return (key.second == Direction::ascending ? "+" : "-") + key.first;
}

std::string describe(const Keys& keys) {
  std::string text = "{";
  for (const auto& [path, direction] : keys)
    text += (text.size() > 1 ? ", " : "") + path + ": " + (direction == Direction::ascending ? "1" : "-1");
  return text + "}";
}

/// FNV-1a of the collection's namespace and the filter's bytes: a token names the query it
/// was made for, so that one passed with another filter or collection is refused instead
/// of continuing a different query. (A checksum against mistakes, not a signature: a
/// client can still make a token of its own, which starts a page elsewhere in the same
/// query's results.)
std::int64_t fingerprint(const CollectionCore& collection, const Document& filter) {
  std::uint64_t hash = 14695981039346656037ull;
  const auto mix = [&](std::uint8_t byte) { hash = (hash ^ byte) * 1099511628211ull; };
  for (char c : collection.database_name()) mix(static_cast<std::uint8_t>(c));
  mix('.');
  for (char c : collection.name()) mix(static_cast<std::uint8_t>(c));
  mix(0);
  for (std::uint8_t byte : filter.bytes()) mix(byte);
  return static_cast<std::int64_t>(hash);
}

/// Finds the value at a dotted path of `document`; false when a field on the way is
/// missing or not a sub-document (the sort then reads null). Throws odm::ValueError for an
/// array on the way or at the end.
bool find_key(const bson_t* document, std::string_view path, bson_iter_t& value) {
  bson_t level;
  const bson_t* current = document;
  while (true) {
    const std::size_t dot = path.find('.');
    const std::string name(path.substr(0, dot));
    bson_iter_t it;
    if (!bson_iter_init(&it, current) || !bson_iter_find_w_len(&it, name.data(), static_cast<int>(name.size())))
      return false;
    if (BSON_ITER_HOLDS_ARRAY(&it)) {
      const Document id = id_field(document);
      throw ValueError("find_page: the sort key " + quoted(name) + " holds an array in the document " + id.to_json() +
                       "; MongoDB sorts an array by its smallest or largest element, after which no filter can "
                       "continue a page: sort by a field that holds one value");
    }
    if (dot == std::string_view::npos) {
      value = it;
      return true;
    }
    if (!BSON_ITER_HOLDS_DOCUMENT(&it)) return false;
    std::uint32_t length = 0;
    const std::uint8_t* data = nullptr;
    bson_iter_document(&it, &length, &data);
    if (!bson_init_static(&level, data, length)) return false;
    current = &level;
    path.remove_prefix(dot + 1);
  }
}

/// `{+price: ..., ...}` as an array of the key values of `document`, null where missing.
void append_key_values(bson_t* out, const Keys& keys, const bson_t* document) {
  ChildWriter values(out, "k", ChildWriter::Kind::array);
  for (const auto& key : keys) {
    const ArrayKey index(values.next_index());
    bson_iter_t value;
    if (find_key(document, key.first, value))
      check_append(bson_append_iter(values.get(), index.view().data(), key_length(index.view()), &value));
    else
      check_append(bson_append_null(values.get(), index.view().data(), key_length(index.view())));
  }
  values.close();
}

Document token_contents(const Keys& keys, std::int64_t filter_print, const bson_t* last) {
  bson_t* contents = bson_new();
  Document owned = Document::adopt(contents);
  check_append(bson_append_int32(contents, "v", 1, 1));
  check_append(bson_append_int64(contents, "q", 1, filter_print));
  {
    ChildWriter sort(contents, "s", ChildWriter::Kind::array);
    for (const auto& key : keys) {
      const ArrayKey index(sort.next_index());
      const std::string text = signed_key(key);
      check_append(bson_append_utf8(sort.get(), index.view().data(), key_length(index.view()), text.data(),
                                    static_cast<int>(text.size())));
    }
    sort.close();
  }
  append_key_values(contents, keys, last);
  return owned;
}

// ---- MongoDB's order of BSON types ----------------------------------------------------

/// The places of MongoDB's comparison order of BSON types (values of one place compare by
/// value; arrays, which sort by an element, are left out).
enum class Place : int { min_key, null, number, string, object, binary, object_id, boolean, date, timestamp, max_key };
constexpr std::array<Place, 11> places{Place::min_key,   Place::null,    Place::number,  Place::string,
                                       Place::object,    Place::binary,  Place::object_id, Place::boolean,
                                       Place::date,      Place::timestamp, Place::max_key};

/// The $type codes of a place (null is matched by `{key: null}`, which also matches a
/// missing field, as the sort places it). The deprecated symbol type (14), which MongoDB
/// orders with strings, is left out: mongo-java-server refuses it and odm never writes it.
std::vector<std::int32_t> type_codes(Place place) {
  switch (place) {
    case Place::min_key: return {-1};
    case Place::null: return {};
    case Place::number: return {1, 16, 18, 19};
    case Place::string: return {2};
    case Place::object: return {3};
    case Place::binary: return {5};
    case Place::object_id: return {7};
    case Place::boolean: return {8};
    case Place::date: return {9};
    case Place::timestamp: return {17};
    case Place::max_key: return {127};
  }
  return {};
}

/// The place of a key value of a token. Throws odm::ValueError for a type no keyset can
/// continue after (a regular expression, JavaScript code, a DBPointer, undefined).
Place place_of(const bson_iter_t& value, std::string_view path) {
  switch (bson_iter_type(&value)) {
    case BSON_TYPE_MINKEY: return Place::min_key;
    case BSON_TYPE_NULL: return Place::null;
    case BSON_TYPE_DOUBLE:
    case BSON_TYPE_INT32:
    case BSON_TYPE_INT64:
    case BSON_TYPE_DECIMAL128: return Place::number;
    case BSON_TYPE_UTF8: return Place::string;
    case BSON_TYPE_DOCUMENT: return Place::object;
    case BSON_TYPE_BINARY: return Place::binary;
    case BSON_TYPE_OID: return Place::object_id;
    case BSON_TYPE_BOOL: return Place::boolean;
    case BSON_TYPE_DATE_TIME: return Place::date;
    case BSON_TYPE_TIMESTAMP: return Place::timestamp;
    case BSON_TYPE_MAXKEY: return Place::max_key;
    default:
      throw ValueError("find_page: the sort key " + quoted(path) + " of the page's last document holds a value of " +
                       "BSON type " + std::to_string(static_cast<int>(bson_iter_type(&value))) +
                       ", after which no filter can continue a page (a regular expression, JavaScript code, a "
                       "DBPointer or undefined): sort by another field");
  }
}

bool is_nan(const bson_iter_t& value) {
  if (BSON_ITER_HOLDS_DOUBLE(&value)) return std::isnan(bson_iter_double(&value));
  if (BSON_ITER_HOLDS_DECIMAL128(&value)) {
    bson_decimal128_t decimal;
    bson_iter_decimal128(&value, &decimal);
    char text[BSON_DECIMAL128_STRING];
    bson_decimal128_to_string(&decimal, text);
    return std::strcmp(text, "NaN") == 0 || std::strcmp(text, "-NaN") == 0;
  }
  return false;
}

/// A branch of an `$or` under construction: `{path: ...}` appended as its own element.
class Branches {
 public:
  explicit Branches(bson_t* array) : array_(array) {}
  /// `{path: {op: value}}`; op empty: `{path: value}`.
  void value(std::string_view path, std::string_view op, const bson_iter_t& value) {
    ChildWriter branch = open();
    if (op.empty()) {
      check_append(bson_append_iter(branch.get(), path.data(), key_length(path), &value));
    } else {
      ChildWriter condition(branch.get(), path);
      check_append(bson_append_iter(condition.get(), op.data(), key_length(op), &value));
      condition.close();
    }
    branch.close();
  }
  void null(std::string_view path) {
    ChildWriter branch = open();
    check_append(bson_append_null(branch.get(), path.data(), key_length(path)));
    branch.close();
  }
  void nan(std::string_view path) {
    ChildWriter branch = open();
    check_append(bson_append_double(branch.get(), path.data(), key_length(path), std::nan("")));
    branch.close();
  }
  void at_least_minus_infinity(std::string_view path) {
    ChildWriter branch = open();
    ChildWriter condition(branch.get(), path);
    check_append(bson_append_double(condition.get(), "$gte", 4, -std::numeric_limits<double>::infinity()));
    condition.close();
    branch.close();
  }
  /// `{path: {$in: []}}`, which matches no document.
  void nothing(std::string_view path) {
    ChildWriter branch = open();
    ChildWriter condition(branch.get(), path);
    ChildWriter none(condition.get(), "$in", ChildWriter::Kind::array);
    none.close();
    condition.close();
    branch.close();
  }
  bool empty() const noexcept { return next_ == 0; }
  void types(std::string_view path, const std::vector<std::int32_t>& codes) {
    if (codes.empty()) return;
    ChildWriter branch = open();
    ChildWriter condition(branch.get(), path);
    ChildWriter list(condition.get(), "$type", ChildWriter::Kind::array);
    for (std::int32_t code : codes) {
      const ArrayKey index(list.next_index());
      check_append(bson_append_int32(list.get(), index.view().data(), key_length(index.view()), code));
    }
    list.close();
    condition.close();
    branch.close();
  }

 private:
  ChildWriter open() {
    const ArrayKey index(next_++);
    return ChildWriter(array_, index.view());
  }
  bson_t* array_;
  std::uint32_t next_ = 0;
};

/// Appends to `conditions` (an `$and` array being written) the condition that a document's
/// value at `path` sorts after `value` in `direction`, as the sort orders BSON values.
void append_after(ChildWriter& conditions, std::string_view path, Direction direction, const bson_iter_t& value) {
  const Place place = place_of(value, path);
  const bool ascending = direction == Direction::ascending;
  const ArrayKey index(conditions.next_index());
  ChildWriter either(conditions.get(), index.view());
  ChildWriter any(either.get(), "$or", ChildWriter::Kind::array);
  Branches branches(any.get());
  // Within the value's own place.
  switch (place) {
    case Place::min_key:
    case Place::null:
    case Place::max_key: break;  // one value each
    case Place::number:
      // NaN sorts below every number; `$lt` may or may not match it, so it is named.
      if (is_nan(value)) {
        if (ascending) branches.at_least_minus_infinity(path);
      } else if (ascending) {
        branches.value(path, "$gt", value);
      } else {
        branches.value(path, "$lt", value);
        branches.nan(path);
      }
      break;
    default: branches.value(path, ascending ? "$gt" : "$lt", value);
  }
  // The places after it in the sort's direction.
  std::vector<std::int32_t> codes;
  for (Place other : places) {
    if (ascending ? other <= place : other >= place) continue;
    if (other == Place::null)
      branches.null(path);
    else
      for (std::int32_t code : type_codes(other)) codes.push_back(code);
  }
  branches.types(path, codes);
  if (branches.empty()) branches.nothing(path);  // `$or: []` is refused: nothing sorts after a last value
  any.close();
  either.close();
}

/// `{path: {$eq: value}}` (null matches a missing field too, as the sort places it). `$eq`,
/// not `{path: value}`: a key value that is a document whose keys start with `$` (a token
/// made by hand) is then compared as a value, never read as operators.
void append_equal(ChildWriter& conditions, std::string_view path, const bson_iter_t& value) {
  const ArrayKey index(conditions.next_index());
  ChildWriter condition(conditions.get(), index.view());
  ChildWriter equal(condition.get(), path);
  check_append(bson_append_iter(equal.get(), "$eq", 3, &value));
  equal.close();
  condition.close();
}

/// The `index`-th value of a token's key values (an iterator standing on it). (Found again
/// for each use rather than kept in a container: libbson aligns bson_iter_t to 128 bytes,
/// more than a std::vector's elements are given.)
bson_iter_t value_at(const bson_t& values, std::size_t index) {
  bson_iter_t it;
  bson_iter_init(&it, &values);
  for (std::size_t i = 0; i <= index; ++i) bson_iter_next(&it);
  return it;
}

/// `{$and: [filter, {$or: [after k0, {$and: [k0 equal, after k1]}, ...]}]}`.
Document after_filter(const Document& filter, const Keys& keys, const bson_t& values) {
  // token_values checked that there is one value per key.
  {
    bson_iter_t it;
    bson_iter_init(&it, &values);
    while (bson_iter_next(&it))
      if (BSON_ITER_HOLDS_ARRAY(&it)) throw_not_a_token("a key value is an array");
  }
  bson_t* out = bson_new();
  Document owned = Document::adopt(out);
  ChildWriter all(out, "$and", ChildWriter::Kind::array);
  if (!filter.empty()) {
    const ArrayKey index(all.next_index());
    check_append(bson_append_document(all.get(), index.view().data(), key_length(index.view()), filter.get()));
  }
  {
    const ArrayKey index(all.next_index());
    ChildWriter either(all.get(), index.view());
    ChildWriter any(either.get(), "$or", ChildWriter::Kind::array);
    for (std::size_t i = 0; i < keys.size(); ++i) {
      const ArrayKey branch_index(any.next_index());
      ChildWriter branch(any.get(), branch_index.view());
      ChildWriter conditions(branch.get(), "$and", ChildWriter::Kind::array);
      for (std::size_t j = 0; j < i; ++j) append_equal(conditions, keys[j].first, value_at(values, j));
      append_after(conditions, keys[i].first, keys[i].second, value_at(values, i));
      conditions.close();
      branch.close();
    }
    any.close();
    either.close();
  }
  all.close();
  return owned;
}

/// The key values of `token` for `keys` and `filter` (the bytes of an array, inside the
/// token), checked: odm::ValueError when it was made for another sort or filter. (Bytes, not
/// a bson_t: a static bson_t points into itself and cannot be returned.)
std::span<const std::uint8_t> token_values(const PageToken& token, const Keys& keys, std::int64_t filter_print) {
  const bson_t* contents = PageTokenAccess::contents(token).get();
  bson_iter_t it;
  if (!bson_iter_init_find(&it, contents, "s") || !BSON_ITER_HOLDS_ARRAY(&it)) throw_not_a_token("it has no sort");
  {
    bson_iter_t key;
    bson_iter_recurse(&it, &key);
    Keys made;
    while (bson_iter_next(&key)) {
      std::uint32_t length = 0;
      const char* text = BSON_ITER_HOLDS_UTF8(&key) ? bson_iter_utf8(&key, &length) : nullptr;
      if (text == nullptr || length < 2 || (text[0] != '+' && text[0] != '-'))
        throw_not_a_token("a sort key is not a signed path");
      made.emplace_back(std::string(text + 1, length - 1), text[0] == '+' ? Direction::ascending : Direction::descending);
    }
    if (made != keys)
      throw ValueError("find_page: the page token was made for the sort " + describe(made) + ", and this page sorts by " +
                       describe(keys) + "; pass the sort of the page the token came from");
  }
  if (!bson_iter_init_find(&it, contents, "q") || !BSON_ITER_HOLDS_INT64(&it)) throw_not_a_token("it has no filter");
  if (bson_iter_int64(&it) != filter_print)
    throw ValueError("find_page: the page token was made for another filter or collection than this page's; pass the "
                     "filter of the page the token came from (built the same way: `a && b` and `b && a` are two "
                     "filters), on its collection");
  if (!bson_iter_init_find(&it, contents, "k") || !BSON_ITER_HOLDS_ARRAY(&it)) throw_not_a_token("it has no keys");
  std::uint32_t length = 0;
  const std::uint8_t* data = nullptr;
  bson_iter_array(&it, &length, &data);
  bson_t values;
  if (!bson_init_static(&values, data, length)) throw_not_a_token("its key values cannot be read");
  if (bson_count_keys(&values) != keys.size()) throw_not_a_token("it holds another number of key values than keys");
  return {data, length};
}

}  // namespace

std::optional<PageToken> find_page(const CollectionCore& collection, SessionState* session, const Document& filter,
                                   const SortExpr& sort, std::int64_t size, const PageToken* after,
                                   const DecodeInto& into) {
  if (size < 1 || size > std::numeric_limits<std::int32_t>::max())
    throw ValueError("find_page: a page holds from 1 to 2147483647 documents, not " + std::to_string(size));
  const Keys keys = total_order(sort);
  const std::int64_t filter_print = fingerprint(collection, filter);
  FindSpec spec;
  {
    SortExpr total;
    total.keys = keys;
    spec.sort = total.write();
  }
  spec.limit = size + 1;  // one more tells whether a next page exists
  Document query;
  if (after != nullptr) {
    const std::span<const std::uint8_t> bytes = token_values(*after, keys, filter_print);
    bson_t values;
    bson_init_static(&values, bytes.data(), bytes.size());
    query = after_filter(filter, keys, values);
  } else {
    query = filter;
  }
  CursorCore cursor = collection.find(session, query, spec);
  std::int64_t read = 0;
  Document last_keys;
  while (const bson_t* document = cursor.next()) {
    if (read == size) return PageTokenAccess::make(std::move(last_keys));
    bson_iter_t unused;
    for (const auto& key : keys) (void)find_key(document, key.first, unused);  // arrays are refused on every page
    try {
      into.take(into.out, document);
    } catch (DecodeError& error) {
      cursor.locate(error, document);
      throw;
    }
    if (++read == size) last_keys = token_contents(keys, filter_print, document);
  }
  return std::nullopt;
}

}  // namespace detail

std::string PageToken::str() const { return detail::base64_of(contents_.bytes()); }

PageToken PageToken::parse(std::string_view text) {
  const std::vector<std::uint8_t> bytes = detail::bytes_of_base64(text);
  Document contents;
  try {
    contents = Document::from_bytes(bytes);
  } catch (const DecodeError& error) {
    detail::throw_not_a_token(std::string("its bytes are no BSON document: ") + error.what());
  }
  bson_iter_t it;
  if (!bson_iter_init_find(&it, contents.get(), "v") || !BSON_ITER_HOLDS_INT32(&it) || bson_iter_int32(&it) != 1)
    detail::throw_not_a_token("it is of no version this odm reads");
  for (const char* field : {"q", "s", "k"})
    if (!bson_iter_init_find(&it, contents.get(), field)) detail::throw_not_a_token("it lacks its field " + std::string(field));
  return PageToken(std::move(contents));
}

bool operator==(const PageToken& a, const PageToken& b) noexcept {
  const auto x = a.contents_.bytes();
  const auto y = b.contents_.bytes();
  return std::equal(x.begin(), x.end(), y.begin(), y.end());
}

}  // namespace odm
