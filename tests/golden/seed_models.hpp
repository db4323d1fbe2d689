#pragma once
// The example documents of the reference guides (/work/shared/seeds/*.txt) as C++
// structs. Each struct's members are declared in the order the seed writes the fields,
// with the C++ type that gives the BSON type a MongoDB shell stores for the seed's
// literal (whole number that fits: int32; NumberLong: int64; fraction: double;
// ISODate: date; ObjectId: objectId).
//
// Seed files:
//   000  Bulgarian: one-to-one/one-to-many embedding, subset pattern, references,
//        trees, atomic operations, keyword search
//   001  Chinese/English: patron + addresses, subset pattern (product + reviews)
//   002  Chinese: atomic operations, keyword search, money, local time
//   003  Russian: students, id cards, e-mails, courses, message board
//   004  Chinese: person + addresses, parts/products, hosts/log messages
//
// The money documents (product price, gas prices, clothes) live in money_seeds_test.cpp.

#include <odm/odm.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace seed {

/// A date the seed writes as ISODate("2019-02-18"): midnight UTC, nothing finer.
using Date = std::chrono::sys_days;
/// A date the seed writes with a time of day (ISODate("2015-08-15T10:06:53")).
using Timestamp = std::chrono::system_clock::time_point;

// ---- seed 000 (and 001): client / patron and their addresses -----------------------

/// The address as embedded in a client or patron (no reference back).
struct Address {
  std::string street;
  std::string city;
  std::string state;
  std::string zip;
  bool operator==(const Address&) const = default;
};

/// 000: `{_id: "joe", name: "Joe Bookreader"}` (also 001's patron document).
struct Client {
  std::string id;
  std::string name;
  bool operator==(const Client&) const = default;
};

/// 000: the normalized address document, `client_id` referencing the client.
struct ClientAddress {
  std::string client_id;
  std::string street;
  std::string city;
  std::string state;
  std::string zip;
  bool operator==(const ClientAddress&) const = default;
};

/// 000: embedded one-to-one.
struct ClientWithAddress {
  std::string id;
  std::string name;
  odm::Embedded<Address> address;
  bool operator==(const ClientWithAddress&) const = default;
};

/// 000 and 001: embedded one-to-few (000 calls it the client, 001 the patron).
struct Patron {
  std::string id;
  std::string name;
  std::vector<odm::Embedded<Address>> addresses;
  bool operator==(const Patron&) const = default;
};

/// 001: the normalized address document, `patron_id` referencing the patron.
struct PatronAddress {
  std::string patron_id;
  std::string street;
  std::string city;
  std::string state;
  std::string zip;
  bool operator==(const PatronAddress&) const = default;
};

// ---- seed 004: person with addresses ------------------------------------------------

struct PersonAddress {
  std::string street;
  std::string city;
  std::string cc;
  bool operator==(const PersonAddress&) const = default;
};

/// 004: `db.person.findOne()` (the shell output shows no _id).
struct Person {
  std::string name;
  std::string ssn;
  std::vector<odm::Embedded<PersonAddress>> addresses;
  bool operator==(const Person&) const = default;
};

// ---- seed 000: movies (subset pattern, one-to-one split) -----------------------------

/// `imdb: {rating, votes, id}`: an embedded document, so `id` stays `id`.
struct Imdb {
  double rating;
  std::int32_t votes;
  std::int32_t id;
  bool operator==(const Imdb&) const = default;
};

struct Viewer {
  double rating;
  std::int32_t numReviews;
  bool operator==(const Viewer&) const = default;
};

struct Tomatoes {
  odm::Embedded<Viewer> viewer;
  Timestamp lastUpdated;
  bool operator==(const Tomatoes&) const = default;
};

/// 000: the whole movie document before the split.
struct FullMovie {
  std::int32_t id;
  std::string title;
  std::int32_t year;
  std::int32_t runtime;
  Date released;
  std::string poster;
  std::string plot;
  std::string fullplot;
  Timestamp lastupdated;
  std::string type;
  std::vector<std::string> directors;
  odm::Embedded<Imdb> imdb;
  std::vector<std::string> countries;
  std::vector<std::string> genres;
  odm::Embedded<Tomatoes> tomatoes;
  bool operator==(const FullMovie&) const = default;
};

/// 000: the `movie` collection, the hot fields loaded by default.
struct Movie {
  std::int32_t id;
  std::string title;
  std::int32_t year;
  std::int32_t runtime;
  Date released;
  std::string type;
  std::vector<std::string> directors;
  std::vector<std::string> countries;
  std::vector<std::string> genres;
  bool operator==(const Movie&) const = default;
};

/// 000: the `movie_details` collection, the cold fields, `movie_id` referencing the movie.
struct MovieDetails {
  std::int32_t id;
  std::int32_t movie_id;
  std::string poster;
  std::string plot;
  std::string fullplot;
  Timestamp lastupdated;
  odm::Embedded<Imdb> imdb;
  odm::Embedded<Tomatoes> tomatoes;
  bool operator==(const MovieDetails&) const = default;
};

// ---- seed 000 / 001: reviews (subset pattern, one-to-many) ---------------------------

/// A review as embedded in the product (no product reference).
struct ProductReview {
  std::int32_t review_id;
  std::string review_author;
  std::string review_text;
  Date published_date;
  bool operator==(const ProductReview&) const = default;
};

/// The `review` collection: every review, `product_id` referencing the product.
struct Review {
  std::int32_t review_id;
  std::int32_t product_id;
  std::string review_author;
  std::string review_text;
  Date published_date;
  bool operator==(const Review&) const = default;
};

// ---- seed 000: publishers and books (references) --------------------------------------

/// `author` is an array of names in one book and a single name in another.
using Authors = std::variant<std::string, std::vector<std::string>>;

/// The publisher as embedded in a book (the duplication the seed warns about).
struct PublisherInfo {
  std::string name;
  std::int32_t founded;
  std::string location;
  bool operator==(const PublisherInfo&) const = default;
};

/// A book with its publisher embedded (no _id in the seed).
struct BookWithPublisher {
  std::string title;
  Authors author;
  Date published_date;
  std::int32_t pages;
  std::string language;
  odm::Embedded<PublisherInfo> publisher;
  bool operator==(const BookWithPublisher&) const = default;
};

/// A publisher keeping a growing array of book ids (the anti-pattern, no _id in the seed).
struct PublisherWithBooks {
  std::string name;
  std::int32_t founded;
  std::string location;
  std::vector<std::int32_t> books;
  bool operator==(const PublisherWithBooks&) const = default;
};

struct Book {
  std::int32_t id;
  std::string title;
  Authors author;
  Date published_date;
  std::int32_t pages;
  std::string language;
  bool operator==(const Book&) const = default;
};

struct Publisher {
  std::string id;
  std::string name;
  std::int32_t founded;
  std::string location;
  bool operator==(const Publisher&) const = default;
};

/// The book referencing its publisher.
struct BookWithPublisherId {
  std::int32_t id;
  std::string title;
  Authors author;
  Date published_date;
  std::int32_t pages;
  std::string language;
  std::string publisher_id;
  bool operator==(const BookWithPublisherId&) const = default;
};

// ---- seed 000 / 002: atomic single-document update ------------------------------------

struct Checkout {
  std::string by;
  Timestamp date;  // `new Date()` in the update: a full instant
  bool operator==(const Checkout&) const = default;
};

struct BookWithCheckout {
  std::int32_t id;
  std::string title;
  Authors author;
  Date published_date;
  std::int32_t pages;
  std::string language;
  std::string publisher_id;
  std::int32_t available;
  std::vector<odm::Embedded<Checkout>> checkout;
  bool operator==(const BookWithCheckout&) const = default;
};

/// 000: what updateOne() returns.
struct UpdateResult {
  bool acknowledged;
  std::int32_t matchedCount;
  std::int32_t modifiedCount;
  bool operator==(const UpdateResult&) const = default;
};

/// 002: the legacy shell's WriteResult(...).
struct WriteResult {
  std::int32_t nMatched;
  std::int32_t nUpserted;
  std::int32_t nModified;
  bool operator==(const WriteResult&) const = default;
};

// ---- seed 000: trees ------------------------------------------------------------------

/// Parent references; the root has `parent: null`.
struct CategoryWithParent {
  std::string id;
  std::optional<std::string> parent;
  bool operator==(const CategoryWithParent&) const = default;
};

/// Child references.
struct CategoryWithChildren {
  std::string id;
  std::vector<std::string> children;
  bool operator==(const CategoryWithChildren&) const = default;
};

// ---- seed 000 / 002: keyword search -------------------------------------------------

struct Volume {
  std::string title;
  std::string author;
  std::int32_t published;
  std::int32_t ISBN;  // the shell reads the literal 0451526996 as the number 451526996
  std::vector<std::string> topics;
  bool operator==(const Volume&) const = default;
};

// ---- seed 004: parts, products, hosts, log messages ----------------------------------

struct Part {
  odm::ObjectId id;
  std::string partno;
  std::string name;
  std::int32_t qty;
  double cost;
  double price;  // the seed's literal 3.99 is a double here (not a money document)
  bool operator==(const Part&) const = default;
};

/// Child references: the product keeps the ids of its parts (the seed shows no _id).
struct ProductWithParts {
  std::string name;
  std::string manufacturer;
  std::int32_t catalog_number;
  std::vector<odm::ObjectId> parts;
  bool operator==(const ProductWithParts&) const = default;
};

struct Host {
  odm::ObjectId id;
  std::string name;
  std::string ipaddr;
  bool operator==(const Host&) const = default;
};

/// Parent reference, one-to-squillions.
struct LogMessage {
  Timestamp time;
  std::string message;
  odm::ObjectId host;
  bool operator==(const LogMessage&) const = default;
};

// ---- seed 003: students ---------------------------------------------------------------

enum class EmailType { work, home };

struct Email {
  std::string email;
  EmailType type;
  bool operator==(const Email&) const = default;
};

struct IdCard {
  std::string number;
  Date issued_on;
  Date expires_on;
  bool operator==(const IdCard&) const = default;
};

struct StudentWithEmails {
  odm::ObjectId id;
  std::string first_name;
  std::string last_name;
  std::vector<odm::Embedded<Email>> emails;
  bool operator==(const StudentWithEmails&) const = default;
};

struct StudentWithIdCard {
  odm::ObjectId id;
  std::string first_name;
  std::string last_name;
  odm::Embedded<IdCard> id_card;
  bool operator==(const StudentWithIdCard&) const = default;
};

/// A course as the seed first shows it (and as embedded in a student).
struct CourseInfo {
  std::string name;
  std::string department;
  std::int32_t points;
  bool operator==(const CourseInfo&) const = default;
};

/// A course in its own collection.
struct Course {
  odm::ObjectId id;
  std::string name;
  std::string department;
  std::int32_t points;
  bool operator==(const Course&) const = default;
};

struct StudentWithEmbeddedCourses {
  odm::ObjectId id;
  std::string first_name;
  std::string last_name;
  std::vector<odm::Embedded<Email>> emails;
  std::vector<odm::Embedded<CourseInfo>> courses;
  bool operator==(const StudentWithEmbeddedCourses&) const = default;
};

/// Child references, many-to-many: the student keeps the ids of its courses.
struct Student {
  odm::ObjectId id;
  std::string first_name;
  std::string last_name;
  std::vector<odm::Embedded<Email>> emails;
  std::vector<odm::ObjectId> courses;
  bool operator==(const Student&) const = default;
};

/// A message-board message as embedded in a student (no _id).
struct BoardMessage {
  std::string subject;
  std::string message;
  Timestamp posted_on;
  bool operator==(const BoardMessage&) const = default;
};

struct StudentWithEmbeddedMessages {
  odm::ObjectId id;
  std::string first_name;
  std::string last_name;
  std::vector<odm::Embedded<Email>> emails;
  std::vector<odm::ObjectId> courses;
  std::vector<odm::Embedded<BoardMessage>> message_board_messages;
  bool operator==(const StudentWithEmbeddedMessages&) const = default;
};

struct StudentWithMessageRefs {
  odm::ObjectId id;
  std::string first_name;
  std::string last_name;
  std::vector<odm::Embedded<Email>> emails;
  std::vector<odm::ObjectId> courses;
  std::vector<odm::ObjectId> message_board_messages;
  bool operator==(const StudentWithMessageRefs&) const = default;
};

/// A message in its own collection, before the parent reference.
struct Message {
  odm::ObjectId id;
  std::string subject;
  std::string message;
  Timestamp posted_on;
  bool operator==(const Message&) const = default;
};

/// Parent reference: the message names the student who wrote it.
struct MessageWithAuthor {
  odm::ObjectId id;
  std::string subject;
  std::string message;
  Timestamp posted_on;
  odm::ObjectId posted_by;
  bool operator==(const MessageWithAuthor&) const = default;
};

}  // namespace seed
