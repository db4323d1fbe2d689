#pragma once
// odm::Cursor<T>: the results of a find or an aggregate as a move-only input range.
//
//   for (const Book& book : books.find(filter, odm::FindOptions<Book>{}.batch_size(50)))
//     ...
//
// Batches are fetched lazily: the first with the command, the next (getMore) only when
// iteration reaches the end of the current one. Each document is decoded when the
// iteration reaches it; one that does not fit T throws odm::DecodeError naming the
// offending path, and the cursor stays usable: `++it` (or begin() again, or next())
// goes on with the following document. After `.skip_bad_documents()` the cursor instead
// steps over such documents and lists each in `skipped()`, with its _id and its error:
//
//   auto cursor = books.find(filter).skip_bad_documents();
//   std::vector<Book> good = cursor.to_vector();
//   for (const odm::SkippedDocument& bad : cursor.skipped()) log(bad.error.what());
//
// A cursor holds one pooled connection from find()/aggregate() until it is exhausted or
// destroyed. Another operation on a thread that keeps a cursor open needs a second one:
// on a pool with none free it throws odm::PoolExhausted after the pool wait timeout.

#include <odm/bson/convert.hpp>
#include <odm/bson/document.hpp>
#include <odm/driver/core.hpp>

#include <concepts>
#include <cstddef>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace odm {

/// What a cursor can yield: a model (decoded) or odm::Document (the raw BSON).
template <class T>
concept cursor_value = std::same_as<T, Document> || document_model<T>;

/// What a query does with a document that does not fit its model: throw odm::DecodeError
/// (the default), or step over it and report it (odm::SkippedDocument).
enum class BadDocuments { raise, skip };

/// A document a query stepped over because it does not fit the model. The server's data
/// is not touched.
struct SkippedDocument {
  SkippedDocument(Document id, DecodeError error);
  // Copied, moved and destroyed in the library (odm/driver/collection.cpp): compiled once, not in every file.
  SkippedDocument(const SkippedDocument&);
  SkippedDocument(SkippedDocument&&) noexcept;
  SkippedDocument& operator=(const SkippedDocument&);
  SkippedDocument& operator=(SkippedDocument&&) noexcept;
  ~SkippedDocument();

  /// `{_id: <the stored value>}`, or an empty document when the document has no `_id`.
  Document id;
  /// Why: the path and reason, and in what() also the _id and the query ("find on db.coll").
  DecodeError error;
};

namespace detail {

template <class T>
T decode_result(const bson_t* document) {
  if constexpr (std::same_as<T, Document>)
    return Document::copy_of(document);
  else
    return from_bson<T>(document);
}

/// Where code that reads raw documents without knowing their model puts what it decodes,
/// so that its loops are compiled once in odm/*.cpp and only this callback per model:
/// `take(out, document)` decodes `document` into the caller's object (a std::vector<T>,
/// a std::optional<T>), throwing DecodeError when it does not fit.
struct DecodeInto {
  void* out = nullptr;
  void (*take)(void* out, const bson_t* document) = nullptr;
};

/// Appends each document to a std::vector<T>.
template <class T>
DecodeInto decode_into(std::vector<T>& found) noexcept {
  return DecodeInto{&found, [](void* out, const bson_t* document) {
                      static_cast<std::vector<T>*>(out)->push_back(decode_result<T>(document));
                    }};
}
/// Sets a std::optional<T> to the document.
template <class T>
DecodeInto decode_into(std::optional<T>& current) noexcept {
  return DecodeInto{&current, [](void* out, const bson_t* document) {
                      static_cast<std::optional<T>*>(out)->emplace(decode_result<T>(document));
                    }};
}

/// Cursor<T>'s step without T: decodes the next document of `core` into `into`, stepping
/// over (and adding to `skipped`) those that do not fit when `bad_documents` is skip, else
/// throwing their DecodeError, located. False at the end.
bool decode_next(CursorCore& core, const DecodeInto& into, BadDocuments bad_documents,
                 std::vector<SkippedDocument>& skipped);

/// What Cursor<T>::with calls, defined by odm/join/join.hpp: the driver declares it and
/// does not depend on joins. Complete exactly when that header is included.
template <class T>
struct CursorJoin;

template <class T>
concept joins_included = requires { sizeof(CursorJoin<T>); };

}  // namespace detail

template <cursor_value T>
class Cursor {
 public:
  using value_type = T;

  class iterator {
   public:
    using iterator_concept = std::input_iterator_tag;
    using iterator_category = std::input_iterator_tag;
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    using reference = T&;
    using pointer = T*;

    iterator() = default;

    T& operator*() const { return *cursor_->current_; }
    T* operator->() const { return &*cursor_->current_; }
    iterator& operator++() {
      cursor_->advance();
      return *this;
    }
    void operator++(int) { ++*this; }
    friend bool operator==(const iterator& it, std::default_sentinel_t) noexcept { return it.at_end(); }

   private:
    friend class Cursor;
    explicit iterator(Cursor* cursor) noexcept : cursor_(cursor) {}
    bool at_end() const noexcept { return cursor_ == nullptr || cursor_->done_; }
    Cursor* cursor_ = nullptr;
  };

  Cursor(Cursor&&) noexcept = default;
  Cursor& operator=(Cursor&&) noexcept = default;
  Cursor(const Cursor&) = delete;
  Cursor& operator=(const Cursor&) = delete;
  ~Cursor() = default;

  /// An iterator at the current document, fetching it when there is none yet (the first
  /// call, or after a document that failed to decode).
  iterator begin() {
    if (!current_ && !done_) advance();
    return iterator(this);
  }
  std::default_sentinel_t end() const noexcept { return {}; }

  /// The next document, or std::nullopt at the end (use either next() or iteration).
  std::optional<T> next() {
    advance();
    if (done_) return std::nullopt;
    return std::exchange(current_, std::nullopt);
  }

  /// Drains the cursor and resolves a reference member of every document with one batched
  /// `$in` query (odm/join/join.hpp, which must be included):
  ///   std::vector<Book> books = collection.find(filter).with(&Book::publisher_id).to_vector();
  /// Chain further `.with(...)` calls on the result for more relations.
  template <class M, class... Nested, class Self = T>
  auto with(M T::*member, Nested&&... nested) && {
    static_assert(detail::joins_included<Self>,
                  "odm: Cursor::with resolves references with odm's joins; #include <odm/join/join.hpp> (or "
                  "<odm/odm.hpp>) before calling it");
    if constexpr (detail::joins_included<Self>)
      return detail::CursorJoin<Self>::run(std::move(*this), member, std::forward<Nested>(nested)...);
  }

  /// From now on, step over documents that do not fit T instead of throwing, and list them
  /// in skipped(). A join started from this cursor (`.with(...)`) does the same at every level.
  Cursor& skip_bad_documents() & noexcept {
    bad_documents_ = BadDocuments::skip;
    return *this;
  }
  Cursor&& skip_bad_documents() && noexcept {
    bad_documents_ = BadDocuments::skip;
    return std::move(*this);
  }
  BadDocuments bad_documents() const noexcept { return bad_documents_; }
  /// The documents stepped over so far, in the order the server sent them.
  const std::vector<SkippedDocument>& skipped() const& noexcept { return skipped_; }
  std::vector<SkippedDocument> skipped() && noexcept { return std::move(skipped_); }

  /// The name of the database the results come from ("" for a cursor made elsewhere).
  const std::string& database_name() const noexcept {
    static const std::string none;
    return names_ ? names_->database : none;
  }

  /// Drains the cursor. Throws DecodeError at the first document that does not fit T.
  std::vector<T> to_vector() {
    std::vector<T> all;
    for (auto& value : *this) all.push_back(std::move(value));
    return all;
  }

 private:
  friend struct detail::Access;
  /// A cursor over a collection's results; joins started from it read the same database.
  Cursor(detail::CursorCore core, const detail::CollectionCore& source)
      : core_(std::move(core)), client_(source.client()), names_(source.names()) {}
  /// The client the results come from (for joins), or null for a cursor made elsewhere.
  const std::shared_ptr<detail::ClientState>& client_state() const noexcept { return client_; }

  void advance() {
    current_.reset();
    if (!done_) done_ = !detail::decode_next(core_, detail::decode_into(current_), bad_documents_, skipped_);
  }

  detail::CursorCore core_;
  std::shared_ptr<detail::ClientState> client_;
  std::shared_ptr<const detail::CollectionNames> names_;
  std::optional<T> current_;
  bool done_ = false;
  BadDocuments bad_documents_ = BadDocuments::raise;
  std::vector<SkippedDocument> skipped_;
};

}  // namespace odm
