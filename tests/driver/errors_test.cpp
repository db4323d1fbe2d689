// Errors: duplicate keys, bad URIs, an unreachable server, documents that do not fit
// the model, and server errors that keep code, message and reply.

#include "models.hpp"
#include "support.hpp"

#include <odm/driver/client.hpp>

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <optional>
#include <string>

namespace odm_test {

// Models live outside the anonymous namespace: the reflection of member names needs
// types with linkage (clang refuses the others).
/// A model with a unique secondary key.
struct Isbn {
  std::int32_t id = 0;
  std::string isbn;
};

/// Counter with `value` as a string: documents written as Counter do not fit it.
struct TextCounter {
  std::int32_t id = 0;
  std::string value;
};

namespace {

class Errors : public DriverTest {};


TEST_F(Errors, DuplicateIdIsADuplicateKeyErrorWithTheIndex) {
  auto coll = db().collection<Counter>();
  coll.insert_one(Counter{1, 1, "a"});
  try {
    coll.insert_one(Counter{1, 2, "b"});
    FAIL() << "expected odm::DuplicateKeyError";
  } catch (const odm::DuplicateKeyError& error) {
    EXPECT_EQ(error.code(), 11000);
    EXPECT_EQ(error.index_name(), "_id_") << error.what();
    EXPECT_NE(std::string(error.what()).find("E11000"), std::string::npos) << error.what();
    EXPECT_FALSE(error.raw_reply().empty());
    if (!error.key_value().empty()) {
      EXPECT_EQ(error.key_value(), json(R"({"_id": 1})"));
    }
  }
  EXPECT_EQ(coll.get_by_id(1).value, 1);
}

TEST_F(Errors, DuplicateOnAUniqueIndexNamesTheIndexAndKey) {
  auto coll = db().collection<Isbn>();
  db().run_command(json(R"({"createIndexes": "isbn", "indexes": [{"key": {"isbn": 1}, "name": "isbn_unique", "unique": true}]})"));
  coll.insert_one(Isbn{1, "978-1449344689"});
  std::optional<odm::DuplicateKeyError> duplicate;
  try {
    coll.insert_one(Isbn{2, "978-1449344689"});
    FAIL() << "expected odm::DuplicateKeyError";
  } catch (const odm::DuplicateKeyError& error) {
    EXPECT_EQ(error.index_name(), "isbn_unique") << error.what();
    duplicate = error;
  }
  // The same error from an update and from insert_many.
  coll.insert_one(Isbn{3, "0-596-00000-0"});
  EXPECT_THROW(coll.update_one(odm::Filter<Isbn>::raw(json(R"({"_id": 3})")),
                               odm::Update<Isbn>::raw(json(R"({"$set": {"isbn": "978-1449344689"}})"))),
               odm::DuplicateKeyError);
  std::vector<Isbn> batch{{4, "x"}, {5, "x"}};
  if (missing_capability(Capability::insert_counts)) {
    // mongo-java-server counts the refused document as inserted: a reply that contradicts
    // itself, which odm reports as the server fault it is (PartialWrites.MongoJavaServers...).
    EXPECT_THROW(coll.insert_many(batch), odm::ProtocolError);
  } else {
    EXPECT_THROW(coll.insert_many(batch), odm::DuplicateKeyError);
  }
  // A DuplicateKeyError is a WriteError, a ServerError and an odm::Error.
  EXPECT_THROW(coll.insert_one(Isbn{1, "other"}), odm::WriteError);
  EXPECT_THROW(coll.insert_one(Isbn{1, "other"}), odm::ServerError);
  EXPECT_THROW(coll.insert_one(Isbn{1, "other"}), odm::error);

  ODM_REQUIRE(duplicate_key_details);
  EXPECT_EQ(duplicate->key_pattern(), json(R"({"isbn": 1})")) << duplicate->raw_reply().to_json();
  EXPECT_EQ(duplicate->key_value(), json(R"({"isbn": "978-1449344689"})")) << duplicate->raw_reply().to_json();
}

TEST_F(Errors, ServerErrorKeepsCodeMessageAndReply) {
  try {
    db().run_command(json(R"({"noSuchCommandForOdm": 1})"));
    FAIL() << "expected odm::ServerError";
  } catch (const odm::ServerError& error) {
    EXPECT_EQ(error.code(), 59);  // CommandNotFound
    EXPECT_FALSE(error.message().empty());
    EXPECT_TRUE(has_key(error.raw_reply(), "ok")) << error.raw_reply().to_json();
  }
  // An invalid update operator is the server's error too.
  auto coll = db().collection<Counter>();
  coll.insert_one(Counter{1, 1, "a"});
  EXPECT_THROW(coll.update_one(odm::Filter<Counter>::raw(json(R"({"_id": 1})")),
                               odm::Update<Counter>::raw(json(R"({"$noSuchOperator": {"value": 1}})"))),
               odm::ServerError);
  // A server error that arrives through a cursor keeps its reply as well.
  try {
    coll.find(odm::Filter<Counter>::raw(json(R"({"value": {"$noSuchQueryOperator": 1}})"))).to_vector();
    FAIL() << "expected odm::ServerError";
  } catch (const odm::ServerError& error) {
    EXPECT_NE(error.code(), 0);
    EXPECT_FALSE(error.raw_reply().empty());
    EXPECT_NE(std::string(error.what()).find("noSuchQueryOperator"), std::string::npos) << error.what();
  }
}

TEST(ErrorsWithoutServer, InvalidUriIsAConfigurationError) {
  try {
    odm::Client client("this is not a mongodb uri");
    FAIL() << "expected odm::ConfigurationError";
  } catch (const odm::ConfigurationError& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find("invalid MongoDB URI"), std::string::npos) << what;
    EXPECT_NE(what.find("this is not a mongodb uri"), std::string::npos) << what;
  }
  EXPECT_THROW(odm::Client("mongodb://"), odm::Error);
  // Credentials are not repeated in the message.
  try {
    odm::Client client("mongodb://user:secret@host:notaport/");
    FAIL() << "expected odm::ConfigurationError";
  } catch (const odm::ConfigurationError& error) {
    EXPECT_EQ(std::string(error.what()).find("secret"), std::string::npos) << error.what();
  }
}

TEST(ErrorsWithoutServer, InvalidTimeoutsAreConfigurationErrors) {
  using std::chrono::milliseconds;
  EXPECT_THROW(odm::Client("mongodb://127.0.0.1:9/", odm::ClientOptions{}.server_selection_timeout(milliseconds(0))),
               odm::ConfigurationError);
  EXPECT_THROW(odm::Client("mongodb://127.0.0.1:9/", odm::ClientOptions{}.socket_timeout(milliseconds(-5))),
               odm::ConfigurationError);
}

TEST(ErrorsWithoutServer, AServerThatNeverAnswersIsAConnectionError) {
  // A socket that listens but never accepts: the kernel completes the TCP handshake,
  // then the driver's hello waits for a reply that never comes.
  const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(listener, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ASSERT_EQ(::listen(listener, 16), 0);
  socklen_t length = sizeof address;
  ASSERT_EQ(::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length), 0);
  const std::string uri = "mongodb://127.0.0.1:" + std::to_string(ntohs(address.sin_port)) + "/";

  odm::Client client(uri, odm::ClientOptions{}
                              .server_selection_timeout(std::chrono::milliseconds(500))
                              .connect_timeout(std::chrono::milliseconds(300))
                              .socket_timeout(std::chrono::milliseconds(300)));
  try {
    (void)client.database("odm_silent").collection<Counter>().count();
    ADD_FAILURE() << "expected odm::ConnectionError";
  } catch (const odm::ConnectionError& error) {
    // The limit that expired, its value and the setting to raise, then libmongoc's words.
    const std::string what = error.what();
    EXPECT_EQ(what.rfind("count in odm_silent.counter: no server was available within the server selection timeout "
                         "(ClientOptions::server_selection_timeout, the URI's serverSelectionTimeoutMS: 500 ms)",
                         0),
              0U)
        << what;
    EXPECT_NE(what.find(" (libmongoc: "), std::string::npos) << what;
  }
  ::close(listener);
}

TEST(ErrorsWithoutServer, ServerDownIsAConnectionErrorWithinTheTimeout) {
  // Port 9 (discard) on localhost: nothing listens there on a build machine.
  odm::Client client("mongodb://127.0.0.1:9/",
                     odm::ClientOptions{}.server_selection_timeout(std::chrono::milliseconds(500)));
  auto coll = client.database("odm_unreachable").collection<Counter>();
  const auto started = std::chrono::steady_clock::now();
  EXPECT_THROW(coll.insert_one(Counter{1, 1, "a"}), odm::ConnectionError);
  EXPECT_THROW(coll.find().to_vector(), odm::ConnectionError);
  EXPECT_THROW(coll.count(), odm::ConnectionError);
  try {
    coll.find_by_id(1);
    FAIL() << "expected odm::ConnectionError";
  } catch (const odm::ConnectionError& error) {
    // The message names the operation first (the README's convention: no "odm:" prefix).
    EXPECT_EQ(std::string(error.what()).rfind("find on odm_unreachable.", 0), 0u) << error.what();
  }
  // For information only (timing is not asserted on a shared machine).
  const auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
  std::cout << "four operations failed in " << elapsed.count() << " ms\n";
}


TEST_F(Errors, ADocumentThatDoesNotFitIsADecodeErrorAndTheCursorGoesOn) {
  auto raw = db().collection<Counter>("mixed");
  raw.insert_one(Counter{1, 10, "a"});
  db().run_command(json(R"({"insert": "mixed", "documents": [{"_id": 2, "value": "twenty", "group": "b"}]})"));
  raw.insert_one(Counter{3, 30, "c"});

  auto cursor = raw.find(odm::Filter<Counter>(), odm::FindOptions<Counter>{}.sort(odm::Sort<Counter>::raw(json(R"({"_id": 1})"))).batch_size(1));
  std::vector<int> seen;
  int decode_errors = 0;
  auto it = cursor.begin();
  while (it != cursor.end()) {
    seen.push_back(it->id);
    try {
      ++it;
    } catch (const odm::DecodeError& error) {
      ++decode_errors;
      EXPECT_EQ(error.path(), "value") << error.what();
      EXPECT_NE(std::string(error.what()).find("expected int, got string"), std::string::npos) << error.what();
      // It names the document and where it came from.
      EXPECT_NE(std::string(error.what()).find(R"({ "_id" : 2 })"), std::string::npos) << error.what();
      EXPECT_NE(std::string(error.what()).find(".mixed"), std::string::npos) << error.what();
      std::cout << "decode error: " << error.what() << "\n";
      it = cursor.begin();  // go on with the next document
    }
  }
  EXPECT_EQ(seen, (std::vector<int>{1, 3}));
  EXPECT_EQ(decode_errors, 1);

  // The same with next().
  auto again = raw.find(odm::Filter<Counter>(), odm::FindOptions<Counter>{}.sort(odm::Sort<Counter>::raw(json(R"({"_id": 1})"))));
  EXPECT_EQ(again.next()->id, 1);
  EXPECT_THROW(again.next(), odm::DecodeError);
  EXPECT_EQ(again.next()->id, 3);
  EXPECT_FALSE(again.next());

  // And find_by_id of the bad one.
  EXPECT_THROW(raw.find_by_id(2), odm::DecodeError);
  // Read as another model, the bad one fits and the others do not.
  auto text = db().collection<TextCounter>("mixed");
  EXPECT_EQ(text.get_by_id(2).value, "twenty");
}

}  // namespace
}  // namespace odm_test
