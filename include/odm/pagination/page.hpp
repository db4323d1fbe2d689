#pragma once
// Keyset pagination: pages of a sorted query, each continued after the last document of
// the one before, never by skipping (a skip reads and discards every document before the
// page, and shifts when documents are inserted or deleted in between).
//
//   const auto by_price = odm::sort(odm::asc(&Product::price_cents));
//   odm::Page<Product> first = odm::find_page(products, odm::field(&Product::in_stock) == true, by_price, 20);
//   // first.next: where the next page starts (first.next->str() to hand out), none on the last
//   odm::Page<Product> second = odm::find_page(products, odm::field(&Product::in_stock) == true, by_price, 20,
//                                              odm::PageToken::parse(text_from_client));
//
// The sort is made total by `_id` (added as its last key, ascending, unless it has one),
// so documents whose keys tie are neither repeated nor skipped. The next page holds the
// documents after the token's keys in MongoDB's order of BSON values, types included:
// null and missing fields first, then numbers, strings, sub-documents, binary data,
// ObjectIds, booleans, dates, timestamps (descending: the reverse). Documents inserted,
// changed or deleted between pages move no other document in or out of a page.
// A sort key may not hold an array (MongoDB sorts by its smallest or largest element,
// after which no filter can continue): odm::ValueError when a page meets one.

#include <odm/driver/collection.hpp>
#include <odm/driver/core.hpp>
#include <odm/driver/cursor.hpp>
#include <odm/driver/session.hpp>
#include <odm/model/access.hpp>
#include <odm/query/expression.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace odm {

namespace detail {
struct PageTokenAccess;
}  // namespace detail

/// Where a page ended: the sort keys of its last document, with the sort, the filter and the
/// collection they belong to. Opaque to the caller, who hands it out as text and passes it
/// back. Not a secret and not signed: a client that makes a token of its own can start a
/// page anywhere in the same query's results, never outside them (its values are compared
/// as values, never read as operators).
class PageToken {
 public:
  /// The token as text: URL-safe base64 without padding (A-Z a-z 0-9 - _).
  std::string str() const;
  /// The token of a text str() made. Throws odm::ValueError when `text` is not one (not
  /// base64, not a token's contents, or longer than max_text_size characters).
  static PageToken parse(std::string_view text);
  /// The longest text parse() reads: a token holds the sort keys of one document, at most
  /// MongoDB's 16 MiB, in base64 (keep sort keys small where tokens travel in URLs).
  static constexpr std::size_t max_text_size = (16 * 1024 * 1024 + 1024) / 3 * 4 + 4;

  friend bool operator==(const PageToken& a, const PageToken& b) noexcept;

 private:
  friend struct detail::PageTokenAccess;
  explicit PageToken(Document contents) : contents_(std::move(contents)) {}
  Document contents_;
};

/// One page of results, in the sort's order, and the token of the next page (none on the
/// last page: no document follows).
template <class T>
struct Page {
  std::vector<T> items;
  std::optional<PageToken> next;
};

namespace detail {

/// find_page without the model: reads up to `size` documents of `filter` in the order of
/// `sort` made total by `_id`, after `after` (null: from the first), into `into`, and
/// returns the token after the last of them when more follow. Throws odm::ValueError for a
/// size below 1, a sort written by hand, a token of another sort or filter, or a sort key
/// holding an array; DecodeError (located) for a document that does not fit.
std::optional<PageToken> find_page(const CollectionCore& collection, SessionState* session, const Document& filter,
                                   const SortExpr& sort, std::int64_t size, const PageToken* after,
                                   const DecodeInto& into);

}  // namespace detail

/// The first page of `size` documents matching `filter` in the order of `sort`, or the
/// page after the one `after` ended (pass the same filter and sort). Throws odm::ValueError
/// for a size below 1 or above 2^31 - 1, a raw sort (Sort<T>::raw: its keys cannot be checked), a token made
/// for another sort or filter, or a sort key holding an array.
template <document_model T>
Page<T> find_page(const Collection<T>& collection, const std::type_identity_t<Filter<T>>& filter,
                  const std::type_identity_t<Sort<T>>& sort, std::int64_t size,
                  const std::optional<PageToken>& after = std::nullopt) {
  Page<T> page;
  page.next = detail::find_page(detail::Access::core(collection), nullptr, filter.bson(),
                                detail::QueryAccess::expression(sort), size, after ? &*after : nullptr,
                                detail::decode_into(page.items));
  return page;
}
/// The same, in a session (and its transaction, if one is open).
template <document_model T>
Page<T> find_page(const Collection<T>& collection, Session& session, const std::type_identity_t<Filter<T>>& filter,
                  const std::type_identity_t<Sort<T>>& sort, std::int64_t size,
                  const std::optional<PageToken>& after = std::nullopt) {
  Page<T> page;
  page.next = detail::find_page(detail::Access::core(collection), detail::Access::session_state(session),
                                filter.bson(), detail::QueryAccess::expression(sort), size, after ? &*after : nullptr,
                                detail::decode_into(page.items));
  return page;
}

}  // namespace odm
