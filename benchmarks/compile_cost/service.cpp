// The compile-cost benchmark's subject: a bookstore service as an application would write
// it on odm, in one translation unit with its models (models.hpp). Six models (publishers,
// authors, books, categories as a tree, products with their newest reviews as a Subset,
// reviews), each with its create/read/update/delete, a join with odm::with, the Subset's
// operations, a walk of the category tree through ParentRef, typed projections, a
// transaction and the index plan. scripts/bench_compile.sh measures what compiling this
// file costs; the build compiles and links it (target odm_compile_cost_service) so that it
// keeps compiling, and again with the models' codecs compiled once in records.cpp (target
// odm_compile_cost_service_split).
//
// Run it against a server with `odm_compile_cost_service mongodb://...`; without an
// argument it prints the index plan and the documents it would store, and exits.
#include "models.hpp"

#include <chrono>
#include <cstdint>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace shop {

// ---------------------------------------------------------------------------------------
// The service

struct Page {
  std::int64_t skip = 0;
  std::int64_t limit = 20;
};

struct CatalogStats {
  std::int64_t books = 0;
  std::int64_t in_stock = 0;
  std::int64_t products = 0;
  std::int64_t reviews = 0;
};

class Catalog {
 public:
  explicit Catalog(odm::Database db)
      : db_(std::move(db)),
        publishers_(db_.collection<Publisher>()),
        authors_(db_.collection<Author>()),
        books_(db_.collection<Book>()),
        categories_(db_.collection<Category>()),
        products_(db_.collection<Product>()),
        reviews_(db_.collection<Review>()) {}

  // -- publishers ------------------------------------------------------------------------

  void add_publisher(const Publisher& publisher) { publishers_.insert_one(publisher); }

  std::optional<Publisher> publisher(const std::string& id) const { return publishers_.find_by_id(id); }

  bool rename_publisher(const std::string& id, const std::string& name) {
    const auto result = publishers_.update_one(odm::field(&Publisher::id) == id, odm::field(&Publisher::name).set(name));
    return result.matched == 1;
  }

  bool move_publisher(const std::string& id, const Address& address) {
    const auto result =
        publishers_.update_one(odm::field(&Publisher::id) == id, odm::field(&Publisher::address).set(address));
    return result.modified == 1;
  }

  std::vector<Publisher> publishers_in(const std::string& city) const {
    return publishers_
        .find(odm::field(&Publisher::address) / &Address::city == city,
              odm::FindOptions<Publisher>{}.sort(odm::sort(odm::asc(&Publisher::name))))
        .to_vector();
  }

  bool remove_publisher(const std::string& id) {
    if (books_.count(odm::field(&Book::publisher_id) == id) > 0) return false;  // still referenced
    return publishers_.delete_one(odm::field(&Publisher::id) == id).deleted == 1;
  }

  // -- authors ---------------------------------------------------------------------------

  odm::ObjectId add_author(Author author) {
    if (author.id == odm::ObjectId{}) author.id = odm::ObjectId::generate();
    authors_.insert_one(author);
    return author.id;
  }

  std::vector<Author> authors_named(const std::string& pattern) const {
    return authors_.find(odm::field(&Author::name).regex(pattern, "i")).to_vector();
  }

  bool set_biography(const odm::ObjectId& id, std::optional<std::string> biography) {
    if (biography) {
      return authors_.update_one(odm::field(&Author::id) == id, odm::field(&Author::biography).set(*biography)).matched ==
             1;
    }
    return authors_.update_one(odm::field(&Author::id) == id, odm::field(&Author::biography).unset()).matched == 1;
  }

  std::int64_t remove_authors_without_books() {
    std::int64_t removed = 0;
    for (const Author& author : authors_.find().to_vector()) {
      if (books_.count(odm::field(&Book::authors) == author.id) == 0)
        removed += authors_.delete_one(odm::field(&Author::id) == author.id).deleted;
    }
    return removed;
  }

  // -- books -----------------------------------------------------------------------------

  void add_books(const std::vector<Book>& books) { books_.insert_many(books); }

  std::optional<Book> book(std::int64_t id) const { return books_.find_by_id(id); }

  /// The newest books of a topic, with their publishers and authors resolved: two $in
  /// queries for the whole page, never one per book.
  std::vector<Book> books_about(const std::string& topic, Page page) const {
    std::vector<Book> found =
        books_
            .find(odm::field(&Book::topics) == topic,
                  odm::FindOptions<Book>{}.sort(odm::sort(odm::desc(&Book::published))).skip(page.skip).limit(page.limit))
            .to_vector();
    odm::resolve(db_, found, odm::with(&Book::publisher_id), odm::with(&Book::authors));
    return found;
  }

  /// The same through the cursor, and the categories too.
  std::vector<Book> books_of(const std::string& publisher_id) const {
    return books_.find(odm::field(&Book::publisher_id) == publisher_id)
        .with(&Book::authors)
        .with(&Book::category, odm::with(&Category::parent))
        .to_vector();
  }

  std::vector<BookSummary> cheaper_than(const odm::Decimal& limit) const {
    return books_
        .find<BookSummary>(odm::field(&Book::list_price) < limit && odm::field(&Book::available) > 0,
                           odm::FindOptions<Book>{}.sort(odm::sort(odm::asc(&Book::title))))
        .to_vector();
  }

  std::vector<BookSummary> search(const std::vector<std::string>& topics, std::optional<Format> format,
                                  std::optional<Date> since) const {
    odm::Filter<Book> filter = odm::field(&Book::topics).all(topics);
    if (format) filter = filter && odm::field(&Book::format) == *format;
    if (since) filter = filter && odm::field(&Book::published) >= *since;
    return books_.find<BookSummary>(filter, odm::FindOptions<Book>{}.limit(50)).to_vector();
  }

  /// {_id: id, available: {$gt: 0}} -> {$inc: {available: -1}}: one atomic update.
  bool check_out(std::int64_t id) {
    const auto result = books_.update_one(odm::field(&Book::id) == id && odm::field(&Book::available) > 0,
                                          odm::field(&Book::available).inc(-1));
    return result.modified == 1;
  }

  void restock(std::int64_t id, std::int32_t copies) {
    books_.update_one(odm::field(&Book::id) == id, odm::field(&Book::available).inc(copies));
  }

  std::optional<Book> reprice(std::int64_t id, const odm::Money& price) {
    return books_.find_one_and_update(odm::field(&Book::id) == id,
                                      odm::field(&Book::price).set(price) + odm::field(&Book::list_price).set(price.amount()),
                                      odm::FindOneAndUpdateOptions<Book>{}.return_document(odm::ReturnDocument::after));
  }

  void tag(std::int64_t id, const std::vector<std::string>& topics) {
    books_.update_one(odm::field(&Book::id) == id, odm::field(&Book::topics).add_to_set(topics.front()));
    if (topics.size() > 1) {
      const std::vector<std::string> rest(topics.begin() + 1, topics.end());
      books_.update_one(odm::field(&Book::id) == id, odm::field(&Book::topics).push_each(rest));
    }
  }

  void untag(std::int64_t id, const std::string& topic) {
    books_.update_one(odm::field(&Book::id) == id, odm::field(&Book::topics).pull(topic));
  }

  std::int64_t withdraw(const std::vector<std::int64_t>& ids) {
    return books_.delete_many(odm::field(&Book::id).in(ids)).deleted;
  }

  /// Stock and prices in one bulk write.
  void apply_inventory(const std::vector<std::pair<std::int64_t, std::int32_t>>& counts) {
    auto bulk = books_.bulk_write();
    for (const auto& [id, count] : counts)
      bulk.update_one(odm::field(&Book::id) == id, odm::field(&Book::available).set(count));
    if (!bulk.empty()) bulk.execute();
  }

  /// Moves copies between two books atomically, in a transaction.
  void transfer_stock(odm::Session& session, std::int64_t from, std::int64_t to, std::int32_t copies) {
    session.with_transaction([&](odm::Session& s) {
      const auto taken = books_.update_one(s, odm::field(&Book::id) == from && odm::field(&Book::available) >= copies,
                                           odm::field(&Book::available).inc(-copies));
      if (taken.modified != 1) throw odm::ValueError("not enough copies of book " + std::to_string(from));
      books_.update_one(s, odm::field(&Book::id) == to, odm::field(&Book::available).inc(copies));
    });
  }

  // -- categories: a tree through parent references ---------------------------------------

  void add_category(const Category& category) { categories_.insert_one(category); }

  std::vector<Category> breadcrumbs(const std::string& id) const {
    const Category node = categories_.get_by_id(id);
    std::vector<Category> path = odm::tree::ancestors(categories_, node, &Category::parent);
    path.insert(path.begin(), node);
    return path;
  }

  std::vector<Category> subcategories(const std::string& id) const {
    const Category node = categories_.get_by_id(id);
    return odm::tree::children(categories_, node, &Category::parent);
  }

  std::vector<Category> everything_under(const std::string& id) const {
    const Category node = categories_.get_by_id(id);
    return odm::tree::descendants(categories_, node, &Category::parent);
  }

  std::optional<Category> parent_of(const std::string& id) const {
    return odm::tree::parent(categories_, categories_.get_by_id(id), &Category::parent);
  }

  bool move_category(const std::string& id, const std::string& new_parent) {
    return categories_
               .update_one(odm::field(&Category::id) == id,
                           odm::field(&Category::parent).set(new_parent))
               .modified == 1;
  }

  /// The books of a category and of everything under it.
  std::vector<BookSummary> books_in_category(const std::string& id) const {
    std::vector<std::string> ids{id};
    for (const Category& below : everything_under(id)) ids.push_back(below.id);
    return books_.find<BookSummary>(odm::field(&Book::category).in(ids)).to_vector();
  }

  // -- products and their newest reviews (Subset) ----------------------------------------

  void add_product(const Product& product) { products_.insert_one(product); }

  Product product_page(std::int32_t id) const {
    std::vector<Product> page = products_.find(odm::field(&Product::id) == id).with(&Product::book).to_vector();
    if (page.empty()) throw odm::ValueError("no product " + std::to_string(id));
    return std::move(page.front());
  }

  std::optional<ProductHeader> product_header(std::int32_t id) const {
    return products_.find_one<ProductHeader>(odm::field(&Product::id) == id);
  }

  std::vector<ProductHeader> products_tagged(const std::string& tag, const odm::Decimal& max_tax) const {
    return products_
        .find<ProductHeader>(odm::field(&Product::tags) == tag && odm::field(&Product::tax_rate) <= max_tax,
                             odm::FindOptions<Product>{}.sort(odm::sort(odm::asc(&Product::name))).limit(100))
        .to_vector();
  }

  bool add_review(std::int32_t product, Review review) {
    return odm::subset::add(db_, &Product::reviews, product, std::move(review));
  }

  bool edit_review(const Review& review) { return odm::subset::update(db_, &Product::reviews, review); }

  bool remove_review(const Review& review) { return odm::subset::remove(db_, &Product::reviews, review); }

  bool repair_reviews(std::int32_t product) { return odm::subset::repair(db_, &Product::reviews, product); }

  /// "Show more": the reviews older than the embedded ten.
  std::vector<Review> older_reviews(std::int32_t product, Page page) const {
    return reviews_
        .find(odm::field(&Review::product_id) == product,
              odm::FindOptions<Review>{}
                  .sort(odm::sort(odm::desc(&Review::published_date), odm::asc(&Review::review_id)))
                  .skip(10 + page.skip)
                  .limit(page.limit))
        .to_vector();
  }

  /// The newest reviews of many products at once: one query per product batch.
  std::vector<std::vector<Review>> newest_reviews(const std::vector<Product>& products, std::size_t per_product) const {
    odm::ChildrenOptions<Review> options;
    options.sort_by(odm::sort(odm::desc(&Review::published_date))).limit(per_product);
    return odm::children_of(db_, products, &Review::product_id, options);
  }

  odm::Decimal average_stars(std::int32_t product) const {
    const auto all = reviews_.find(odm::field(&Review::product_id) == product).to_vector();
    if (all.empty()) return odm::Decimal("0");
    std::int64_t sum = 0;
    for (const Review& r : all) sum += r.stars;
    return odm::Decimal(sum) / odm::Decimal(static_cast<std::int64_t>(all.size()));
  }

  odm::Money price_with_tax(std::int32_t id) const {
    const Product p = products_.get_by_id(id);
    return (p.price * (odm::Decimal("1") + p.tax_rate)).round(2);
  }

  void touch(std::int32_t id, Instant when) {
    products_.update_one(odm::field(&Product::id) == id, odm::field(&Product::updated_at).set(when));
  }

  void set_dimensions(std::int32_t id, const Dimensions& d) {
    products_.update_one(odm::field(&Product::id) == id,
                         odm::field(&Product::dimensions).set(odm::Embedded<Dimensions>(d)));
  }

  std::optional<Product> discontinue(std::int32_t id) {
    reviews_.delete_many(odm::field(&Review::product_id) == id);
    return products_.find_one_and_delete(odm::field(&Product::id) == id);
  }

  // -- reports -----------------------------------------------------------------------------

  CatalogStats stats() const {
    CatalogStats s;
    s.books = books_.count();
    s.in_stock = books_.count(odm::field(&Book::available) > 0);
    s.products = products_.count();
    s.reviews = reviews_.count();
    return s;
  }

  std::vector<odm::Document> books_per_publisher() const {
    std::vector<odm::Document> stages{
        odm::Document::from_json(R"({"$group": {"_id": "$publisher_id", "books": {"$sum": 1}}})"),
        odm::Document::from_json(R"({"$sort": {"books": -1}})"),
    };
    return books_.aggregate<odm::Document>(stages).to_vector();
  }

  const odm::Database& db() const noexcept { return db_; }

 private:
  odm::Database db_;
  odm::Collection<Publisher> publishers_;
  odm::Collection<Author> authors_;
  odm::Collection<Book> books_;
  odm::Collection<Category> categories_;
  odm::Collection<Product> products_;
  odm::Collection<Review> reviews_;
};

// ---------------------------------------------------------------------------------------
// Sample data

Date day(int y, unsigned m, unsigned d) {
  return Date(std::chrono::year_month_day(std::chrono::year(y), std::chrono::month(m), std::chrono::day(d)));
}

Publisher sample_publisher() {
  return Publisher{"oreilly", "O'Reilly Media", 1980, Address{"1005 Gravenstein Highway North", "Sebastopol", "USA", "95472"},
                   {"Make", "No Starch (distribution)"}};
}

Author sample_author(std::string name) {
  Author author;
  author.id = odm::ObjectId::generate();
  author.name = std::move(name);
  author.links["site"] = "https://example.org/" + author.name;
  author.joined = odm::LocalTime::from_local(
      std::chrono::local_time<std::chrono::milliseconds>(std::chrono::milliseconds(1'600'000'000'000)),
      std::chrono::minutes(120));
  return author;
}

Book sample_book(std::int64_t id, std::string title, const std::vector<odm::ObjectId>& authors) {
  Book book;
  book.id = id;
  book.title = std::move(title);
  book.credits = std::vector<Contribution>{{"Kristina Chodorow", Role::author}, {"Mike Dirolf", Role::editor}};
  book.published = day(2010, 9, 24);
  book.pages = 216;
  book.format = Format::paperback;
  book.price = odm::Money("39.99", "USD");
  book.list_price = book.price.amount();
  book.available = 3;
  book.topics = {"databases", "mongodb"};
  book.publisher_id = "oreilly";
  book.authors = odm::RefMany<Author>(authors);
  book.category = "MongoDB";
  return book;
}

std::vector<Category> sample_categories() {
  const auto node = [](std::string id, std::optional<std::string> parent, std::int32_t position) {
    Category c;
    c.label = id;
    c.id = std::move(id);
    c.parent = parent ? odm::ParentRef<Category>(*parent) : odm::ParentRef<Category>(std::nullopt);
    c.position = position;
    return c;
  };
  return {node("Books", std::nullopt, 0),        node("Programming", "Books", 0), node("Databases", "Programming", 0),
          node("Languages", "Programming", 1), node("MongoDB", "Databases", 0),   node("dbm", "Databases", 1)};
}

Product sample_product(std::int32_t id) {
  Product product;
  product.id = id;
  product.name = "Super Widget";
  product.description = "This is the most useful item in your toolbox.";
  product.price = odm::Money("119.99", "USD");
  product.tax_rate = odm::Decimal("0.19");
  product.dimensions = odm::Embedded<Dimensions>(Dimensions{12.5, 4, 30, 850});
  product.tags = {"tools", "bestseller"};
  product.book = 123456789;
  product.updated_at = std::chrono::system_clock::time_point(std::chrono::seconds(1'700'000'000));
  return product;
}

Review sample_review(std::int32_t id, std::string author, Date published) {
  return Review{id, {}, std::move(author), "Review " + std::to_string(id), 4, published};
}

/// The documents the service stores, as Extended JSON, and each read back.
void print_samples(std::ostream& out) {
  const Publisher publisher = sample_publisher();
  const Author author = sample_author("Kristina Chodorow");
  const Book book = sample_book(123456789, "MongoDB: The Definitive Guide", {author.id});
  const Product product = sample_product(1);
  out << odm::to_json(publisher) << "\n" << odm::to_json(author) << "\n" << odm::to_json(book) << "\n";
  out << odm::to_json(product) << "\n";
  for (const Category& c : sample_categories()) out << odm::to_json(c) << "\n";
  const Book back = odm::from_bson<Book>(odm::to_bson(book));
  const Publisher publisher_back = odm::from_json<Publisher>(odm::to_json(publisher));
  const Product product_back = odm::from_bson<Product>(odm::to_bson(product));
  const Review review_back = odm::from_json<Review>(odm::to_json(sample_review(7, "Hans", day(2017, 12, 6))));
  out << "read back: " << back.title << ", " << publisher_back.name << ", " << product_back.price << ", "
      << review_back.review_author << "\n";
  out << "projection: " << odm::projection<Book, BookSummary>().bson().to_json() << "\n";
  const odm::Filter<Book> filter =
      odm::field(&Book::topics) == "mongodb" && (odm::field(&Book::pages) > 100 || !odm::field(&Book::subtitle).exists());
  out << "filter: " << filter.bson().to_json() << "\n";
  const odm::Update<Book> update = odm::field(&Book::available).inc(1) + odm::field(&Book::topics).push("nosql");
  out << "update: " << update.bson().to_json() << "\n";
}

/// The indexes the six models imply and declare.
void print_index_plan(std::ostream& out) {
  for (const odm::IndexModel& index : odm::index_plan_of<Publisher, Author, Book, Category, Product, Review>())
    out << index.collection << ": " << index.keys.to_json() << (index.unique ? " unique" : "") << "\n";
}

/// The whole service against a server: each part checks what it reads back.
int run(const std::string& uri) {
  const odm::Client client(uri, odm::ClientOptions{}.server_selection_timeout(std::chrono::seconds(10)));
  Catalog catalog(client.database("odm_compile_cost"));
  catalog.db().collection<Publisher>().drop();
  catalog.db().collection<Author>().drop();
  catalog.db().collection<Book>().drop();
  catalog.db().collection<Category>().drop();
  catalog.db().collection<Product>().drop();
  catalog.db().collection<Review>().drop();
  const odm::IndexSyncReport report =
      odm::sync_indexes<Publisher, Author, Book, Category, Product, Review>(catalog.db());
  std::cout << report.to_string() << "\n";

  catalog.add_publisher(sample_publisher());
  const odm::ObjectId kristina = catalog.add_author(sample_author("Kristina Chodorow"));
  const odm::ObjectId mike = catalog.add_author(sample_author("Mike Dirolf"));
  for (const Category& c : sample_categories()) catalog.add_category(c);
  catalog.add_books({sample_book(123456789, "MongoDB: The Definitive Guide", {kristina, mike}),
                     sample_book(234567890, "50 Tips and Tricks for MongoDB Developer", {kristina})});

  int failures = 0;
  const auto check = [&](bool ok, std::string_view what) {
    std::cout << (ok ? "ok: " : "FAILED: ") << what << "\n";
    if (!ok) ++failures;
  };

  const std::vector<Book> about = catalog.books_about("mongodb", {});
  check(about.size() == 2 && about[0].publisher_id.is_loaded() && about[0].publisher_id->name == "O'Reilly Media",
        "books with their publisher resolved");
  check(about[0].authors.is_loaded() && about[0].authors.size() >= 1, "and their authors");
  const std::vector<Book> by_oreilly = catalog.books_of("oreilly");
  check(by_oreilly.size() == 2 && by_oreilly[0].category.is_loaded() &&
            by_oreilly[0].category->parent.is_loaded() && by_oreilly[0].category->parent->id == "Databases",
        "books with their category and its parent");
  check(catalog.cheaper_than(odm::Decimal("50")).size() == 2, "both books cost less than 50 USD");
  check(catalog.search({"mongodb", "databases"}, Format::paperback, day(2000, 1, 1)).size() == 2, "search");
  check(catalog.check_out(123456789), "a copy is checked out");
  catalog.restock(123456789, 2);
  const auto repriced = catalog.reprice(234567890, odm::Money("24.50", "USD"));
  check(repriced && repriced->price == odm::Money("24.50", "USD"), "repriced");
  catalog.tag(234567890, {"tips", "performance"});
  catalog.untag(234567890, "tips");
  catalog.apply_inventory({{123456789, 10}, {234567890, 4}});
  check(catalog.book(123456789)->available == 10, "inventory applied");

  const auto crumbs = catalog.breadcrumbs("MongoDB");
  check(crumbs.size() == 4 && crumbs.back().id == "Books", "breadcrumbs up to the root");
  check(catalog.subcategories("Databases").size() == 2, "Databases has two subcategories");
  check(catalog.everything_under("Programming").size() == 4, "four categories under Programming");
  check(catalog.parent_of("dbm") && catalog.parent_of("dbm")->id == "Databases", "the parent of dbm");
  check(catalog.books_in_category("Programming").size() == 2, "both books are under Programming");
  check(catalog.move_category("dbm", "Languages"), "dbm moved");

  catalog.add_product(sample_product(1));
  for (std::int32_t i = 0; i < 12; ++i)
    catalog.add_review(1, sample_review(100 + i, "Reader " + std::to_string(i), day(2019, 1, static_cast<unsigned>(i + 1))));
  const Product page = catalog.product_page(1);
  check(page.reviews.size() == 10 && page.reviews[0].review_id == 111, "the ten newest reviews are embedded");
  check(page.book.is_loaded() && page.book->title == "MongoDB: The Definitive Guide", "the product's book");
  check(catalog.older_reviews(1, {}).size() == 2, "two older reviews");
  Review edited = sample_review(111, "Reader 11", day(2019, 1, 12));
  edited.product_id = 1;
  edited.review_text = "Edited.";
  check(catalog.edit_review(edited), "a review is edited");
  check(catalog.remove_review(edited), "and removed");
  check(catalog.repair_reviews(1), "repair finds nothing to do");
  check(catalog.newest_reviews({page}, 3).front().size() == 3, "the three newest reviews");
  check(catalog.average_stars(1) == odm::Decimal("4"), "four stars on average");
  check(catalog.price_with_tax(1) == odm::Money("142.79", "USD"), "price with tax");
  check(catalog.product_header(1)->name == "Super Widget", "the header");
  check(catalog.products_tagged("tools", odm::Decimal("0.2")).size() == 1, "tagged products");
  catalog.touch(1, std::chrono::system_clock::now());
  catalog.set_dimensions(1, Dimensions{1, 2, 3, 4});
  const CatalogStats stats = catalog.stats();
  check(stats.books == 2 && stats.products == 1 && stats.reviews == 11, "stats");
  check(catalog.books_per_publisher().size() == 1, "one publisher in the report");
  check(catalog.discontinue(1).has_value(), "the product is discontinued");
  check(catalog.withdraw({234567890}) == 1, "a book is withdrawn");
  check(catalog.remove_authors_without_books() == 0, "every author still has a book");
  check(!catalog.remove_publisher("oreilly"), "a publisher with books stays");
  check(catalog.rename_publisher("oreilly", "O'Reilly"), "renamed");
  check(catalog.move_publisher("oreilly", Address{"Gravenstein Highway", "Sebastopol", "USA", std::nullopt}), "moved");
  check(catalog.publishers_in("Sebastopol").size() == 1, "the publisher is in Sebastopol");
  check(catalog.set_biography(kristina, "Author of the definitive guide."), "biography set");
  check(catalog.set_biography(mike, std::nullopt), "biography unset");
  check(catalog.authors_named("^kristina").size() == 1, "found by name");
  check(catalog.publisher("oreilly")->founded == 1980, "the publisher reads back");

  try {
    odm::Session session = client.start_session();
    catalog.transfer_stock(session, 123456789, 234567890, 1);
  } catch (const odm::Error& e) {
    std::cout << "transaction: " << e.what() << "\n";  // a server without transactions
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace shop

int main(int argc, char** argv) {
  try {
    if (argc < 2) {
      shop::print_index_plan(std::cout);
      shop::print_samples(std::cout);
      return 0;
    }
    return shop::run(argv[1]);
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
