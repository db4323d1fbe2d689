// Every wait has a limit: the pool wait (a thread that holds a cursor and runs another
// operation, more open cursors than connections), the defaults and their precedence, a
// server that stops answering after the handshake, and a connection reset under a read.
//
// Time bounds are generous on purpose: each proves "an error after about the configured
// limit, not a hang", never how fast this machine is. The lower bounds hold by
// construction (no error can come before its timeout fires).

#include "fault_proxy.hpp"
#include "models.hpp"
#include "support.hpp"

#include <odm/driver/client.hpp>
#include <odm/query.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

namespace odm_test {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

/// Slack on top of a configured limit for a loaded machine (sanitizers, 2 shared cores).
constexpr milliseconds slack{10'000};

milliseconds since(Clock::time_point start) {
  return std::chrono::duration_cast<milliseconds>(Clock::now() - start);
}

class Limits : public DriverTest {
 protected:
  /// A second client on the same server with these options (and no command log).
  odm::Client other_client(const odm::ClientOptions& options) { return odm::Client(uri_, options); }

  std::vector<Counter> counters(int n) {
    std::vector<Counter> all;
    for (int i = 0; i < n; ++i) all.push_back(Counter{i, i, "g"});
    return all;
  }
};

// ---- defaults and precedence -------------------------------------------------------

TEST(LimitsWithoutServer, DefaultsBoundEveryWait) {
  const odm::ClientLimits defaults;
  EXPECT_EQ(defaults.server_selection_timeout, milliseconds(10'000));
  EXPECT_EQ(defaults.connect_timeout, milliseconds(10'000));
  EXPECT_EQ(defaults.socket_timeout, milliseconds(30'000));  // libmongoc's own: 300 s
  EXPECT_EQ(defaults.pool_wait_timeout, milliseconds(10'000));  // libmongoc's own: forever
  EXPECT_EQ(defaults.max_pool_size, 100u);
  // Nothing set: a client runs with exactly these.
  EXPECT_EQ(odm::Client("mongodb://127.0.0.1:9/").limits(), defaults);
}

TEST(LimitsWithoutServer, TheUriOverridesTheDefaultsAndTheOptionsOverrideTheUri) {
  const std::string uri =
      "mongodb://127.0.0.1:9/?serverSelectionTimeoutMS=1100&connectTimeoutMS=1200&socketTimeoutMS=1300"
      "&waitQueueTimeoutMS=1400&maxPoolSize=7";
  const odm::ClientLimits from_uri = odm::Client(uri).limits();
  EXPECT_EQ(from_uri.server_selection_timeout, milliseconds(1100));
  EXPECT_EQ(from_uri.connect_timeout, milliseconds(1200));
  EXPECT_EQ(from_uri.socket_timeout, milliseconds(1300));
  EXPECT_EQ(from_uri.pool_wait_timeout, milliseconds(1400));
  EXPECT_EQ(from_uri.max_pool_size, 7u);

  const odm::ClientLimits from_options = odm::Client(uri, odm::ClientOptions{}
                                                              .server_selection_timeout(milliseconds(2100))
                                                              .connect_timeout(milliseconds(2200))
                                                              .socket_timeout(milliseconds(2300))
                                                              .pool_wait_timeout(milliseconds(2400))
                                                              .max_pool_size(3))
                                             .limits();
  EXPECT_EQ(from_options.server_selection_timeout, milliseconds(2100));
  EXPECT_EQ(from_options.connect_timeout, milliseconds(2200));
  EXPECT_EQ(from_options.socket_timeout, milliseconds(2300));
  EXPECT_EQ(from_options.pool_wait_timeout, milliseconds(2400));
  EXPECT_EQ(from_options.max_pool_size, 3u);

  // One option set: the others keep the URI's values.
  const odm::ClientLimits mixed = odm::Client(uri, odm::ClientOptions{}.socket_timeout(milliseconds(900))).limits();
  EXPECT_EQ(mixed.socket_timeout, milliseconds(900));
  EXPECT_EQ(mixed.connect_timeout, milliseconds(1200));
}

TEST(LimitsWithoutServer, NoLimitIsAConfigurationError) {
  // libmongoc reads 0 (and a negative pool wait) as "no limit"; odm refuses them.
  for (const char* option : {"socketTimeoutMS=0", "connectTimeoutMS=0", "serverSelectionTimeoutMS=0",
                             "waitQueueTimeoutMS=0", "waitQueueTimeoutMS=-1", "maxPoolSize=0"}) {
    try {
      odm::Client client(std::string("mongodb://127.0.0.1:9/?") + option);
      ADD_FAILURE() << option << ": expected odm::ConfigurationError";
    } catch (const odm::ConfigurationError& error) {
      const std::string name = std::string(option).substr(0, std::string(option).find('='));
      EXPECT_NE(std::string(error.what()).find(name), std::string::npos) << error.what();
    }
  }
  EXPECT_THROW(odm::Client("mongodb://127.0.0.1:9/", odm::ClientOptions{}.pool_wait_timeout(milliseconds(0))),
               odm::ConfigurationError);
  EXPECT_THROW(odm::Client("mongodb://127.0.0.1:9/", odm::ClientOptions{}.max_pool_size(0)), odm::ConfigurationError);
}

// ---- the pool ----------------------------------------------------------------------

TEST_F(Limits, AnUpdateInsideAFindLoopOnAPoolOfOneIsPoolExhaustedNotAHang) {
  const milliseconds wait(300);
  odm::Client small = other_client(odm::ClientOptions{}.max_pool_size(1).pool_wait_timeout(wait));
  auto coll = small.database(db_name_).collection<Counter>();
  coll.insert_many(counters(3));

  const auto start = Clock::now();
  int updated = 0;
  try {
    // The cursor holds the pool's only connection while the loop runs.
    for (const Counter& counter : coll.find({}, odm::FindOptions<Counter>{}.batch_size(1))) {
      coll.update_one(odm::field(&Counter::id) == counter.id, odm::field(&Counter::value).inc(1));
      ++updated;
    }
    FAIL() << "expected odm::PoolExhausted";
  } catch (const odm::PoolExhausted& error) {
    const milliseconds elapsed = since(start);
    EXPECT_GE(elapsed, wait * 9 / 10);
    EXPECT_LT(elapsed, wait + slack);
    EXPECT_EQ(error.max_pool_size(), 1u);
    EXPECT_EQ(error.wait_timeout(), wait);
    const std::string what = error.what();
    EXPECT_NE(what.find("pool is exhausted"), std::string::npos) << what;
    EXPECT_NE(what.find("all 1 connection "), std::string::npos) << what;
    EXPECT_NE(what.find("cursor"), std::string::npos) << what;
    std::cout << "after " << elapsed.count() << " ms: " << what << "\n";
  }
  EXPECT_EQ(updated, 0);
  // It is a ConnectionError too, and the pool works again once the cursor is gone.
  static_assert(std::is_base_of_v<odm::ConnectionError, odm::PoolExhausted>);
  EXPECT_EQ(coll.update_one(odm::field(&Counter::id) == 0, odm::field(&Counter::value).inc(1)).modified, 1);
  // Draining the cursor first (to_vector) frees the connection for the updates.
  for (const Counter& counter : coll.find().to_vector())
    coll.update_one(odm::field(&Counter::id) == counter.id, odm::field(&Counter::value).inc(1));
  EXPECT_EQ(coll.find_by_id(2)->value, 3);
}

TEST_F(Limits, ThePoolSizeAndWaitMayComeFromTheUri) {
  const std::string separator = uri_.find('?') == std::string::npos ? "/?" : "&";
  odm::Client small(uri_ + separator + "maxPoolSize=1&waitQueueTimeoutMS=250");
  auto coll = small.database(db_name_).collection<Counter>();
  coll.insert_many(counters(2));
  auto cursor = coll.find({}, odm::FindOptions<Counter>{}.batch_size(1));
  ASSERT_NE(cursor.begin(), cursor.end());
  try {
    coll.count();
    FAIL() << "expected odm::PoolExhausted";
  } catch (const odm::PoolExhausted& error) {
    EXPECT_EQ(error.max_pool_size(), 1u);
    EXPECT_EQ(error.wait_timeout(), milliseconds(250));
  }
}

TEST_F(Limits, TheHundredAndFirstOpenCursorOnAPoolOfAHundredIsPoolExhausted) {
  const milliseconds wait(300);
  odm::Client client = other_client(odm::ClientOptions{}.pool_wait_timeout(wait));  // the default size
  ASSERT_EQ(client.limits().max_pool_size, 100u);
  auto coll = client.database(db_name_).collection<Counter>();
  coll.insert_many(counters(2));

  std::vector<odm::Cursor<Counter>> open;
  for (int i = 0; i < 100; ++i) {
    open.push_back(coll.find({}, odm::FindOptions<Counter>{}.batch_size(1)));
    ASSERT_NE(open.back().begin(), open.back().end());  // the first batch is read; the cursor stays open
  }
  const auto start = Clock::now();
  try {
    auto one_too_many = coll.find({}, odm::FindOptions<Counter>{}.batch_size(1));
    FAIL() << "expected odm::PoolExhausted";
  } catch (const odm::PoolExhausted& error) {
    EXPECT_LT(since(start), wait + slack);
    EXPECT_EQ(error.max_pool_size(), 100u);
    EXPECT_NE(std::string(error.what()).find("all 100 connections"), std::string::npos) << error.what();
  }
  // A cursor read to its end gives its connection back.
  EXPECT_EQ(open.front().to_vector().size(), 2u);
  EXPECT_EQ(coll.find().to_vector().size(), 2u);
}

// ---- a server that stops answering, a connection that is reset ---------------------

class Faults : public ThroughAProxy<Limits> {};

TEST_F(Faults, AServerThatStopsAnsweringAfterTheHandshakeIsATimedConnectionError) {
  FaultProxy proxy(upstream_, {.fault = "stall", .after = 0, .commands = "find", .max_write_batch_size = 0});
  ASSERT_TRUE(proxy.running());
  const milliseconds socket(1000);
  const milliseconds selection(1000);
  const milliseconds connect(1000);
  odm::Client client(proxy.uri(), odm::ClientOptions{}
                                      .socket_timeout(socket)
                                      .server_selection_timeout(selection)
                                      .connect_timeout(connect));
  auto coll = client.database(db_name_).collection<Counter>();
  coll.insert_many(counters(3));  // the handshake, the insert: all answered

  const auto start = Clock::now();
  try {
    coll.find().to_vector();  // the server never answers the find
    FAIL() << "expected odm::ConnectionError";
  } catch (const odm::ConnectionError& error) {
    const milliseconds elapsed = since(start);
    // At least the socket timeout; at most one retry's worth of every limit (a read is
    // retried once after a network error), plus slack. Without a socket timeout this
    // waited 300 s (libmongoc's default).
    EXPECT_GE(elapsed, socket * 9 / 10);
    EXPECT_LT(elapsed, 2 * (socket + selection + connect) + slack);
    std::cout << "after " << elapsed.count() << " ms: " << error.what() << "\n";
    // What the user did, the limit that expired and its value, and the setting to raise:
    // the find's socket timeout, or, when the retry's new connection stalls in its
    // handshake too (libmongoc then reports the "isMaster" it sent), the connect timeout.
    const std::string what = error.what();
    EXPECT_EQ(what.rfind("find on " + db_name_ + ".counter: ", 0), 0U) << what;
    const bool socket_limit = what.find("no reply came within the socket timeout (ClientOptions::socket_timeout, "
                                        "the URI's socketTimeoutMS: 1000 ms)") != std::string::npos;
    const bool handshake_limit =
        what.find("did not complete the handshake of a new connection (the hello libmongoc sends first) within the "
                  "connect timeout (ClientOptions::connect_timeout, the URI's connectTimeoutMS: 1000 ms)") !=
        std::string::npos;
    EXPECT_TRUE(socket_limit || handshake_limit) << what;
  }
}

// A server that accepts a new connection but never answers its handshake: libmongoc names
// the hello it sends first ("isMaster"), a command the user never sent; odm says what it
// is and which limit expired.
TEST_F(Faults, AStalledHandshakeNamesTheConnectTimeout) {
  // The monitor's first hello passes; the next one (the operation's own connection, or a
  // heartbeat) stalls.
  FaultProxy proxy(upstream_, {.fault = "stall", .after = 1, .commands = "isMaster,hello", .max_write_batch_size = 0});
  ASSERT_TRUE(proxy.running());
  odm::Client client(proxy.uri(), odm::ClientOptions{}
                                      .socket_timeout(milliseconds(1000))
                                      .server_selection_timeout(milliseconds(1000))
                                      .connect_timeout(milliseconds(700)));
  auto coll = client.database(db_name_).collection<Counter>();
  try {
    coll.find().to_vector();
    FAIL() << "expected odm::ConnectionError";
  } catch (const odm::ConnectionError& error) {
    const std::string what = error.what();
    std::cout << what << "\n";
    EXPECT_EQ(what.rfind("find on " + db_name_ + ".counter: ", 0), 0U) << what;
    // Either the operation's connection stalled in its handshake, or the monitor's did
    // and no server was left to select: each names its own limit and value.
    const bool handshake = what.find("did not complete the handshake of a new connection (the hello libmongoc sends "
                                     "first) within the connect timeout (ClientOptions::connect_timeout, the URI's "
                                     "connectTimeoutMS: 700 ms)") != std::string::npos;
    const bool selection = what.find("no server was available within the server selection timeout "
                                     "(ClientOptions::server_selection_timeout, the URI's serverSelectionTimeoutMS: "
                                     "1000 ms)") != std::string::npos;
    EXPECT_TRUE(handshake || selection) << what;
  }
}

TEST_F(Faults, AWriteToAServerThatStopsAnsweringIsATimedConnectionError) {
  FaultProxy proxy(upstream_, {.fault = "stall", .after = 0, .commands = "update", .max_write_batch_size = 0});
  ASSERT_TRUE(proxy.running());
  const milliseconds socket(1000);
  odm::Client client(proxy.uri(), odm::ClientOptions{}
                                      .socket_timeout(socket)
                                      .server_selection_timeout(milliseconds(1000))
                                      .connect_timeout(milliseconds(1000)));
  auto coll = client.database(db_name_).collection<Counter>();
  coll.insert_one(Counter{1, 1, "g"});
  const auto start = Clock::now();
  EXPECT_THROW(coll.update_one(odm::field(&Counter::id) == 1, odm::field(&Counter::value).inc(1)),
               odm::ConnectionError);
  const milliseconds elapsed = since(start);
  EXPECT_GE(elapsed, socket * 9 / 10);
  EXPECT_LT(elapsed, 2 * (socket + milliseconds(2000)) + slack);
}

TEST_F(Faults, AConnectionResetUnderAReadIsAConnectionErrorAndThePoolRecovers) {
  // Every find is reset; everything else passes.
  FaultProxy proxy(upstream_, {.fault = "reset", .after = 0, .commands = "find", .max_write_batch_size = 0});
  ASSERT_TRUE(proxy.running());
  const milliseconds socket(10'000);
  odm::Client client(proxy.uri(), odm::ClientOptions{}.socket_timeout(socket));
  auto coll = client.database(db_name_).collection<Counter>();
  coll.insert_many(counters(3));

  const auto start = Clock::now();
  try {
    coll.find().to_vector();
    FAIL() << "expected odm::ConnectionError";
  } catch (const odm::ConnectionError& error) {
    // A reset is seen at once: well before the socket timeout would have fired.
    EXPECT_LT(since(start), socket);
    std::cout << error.what() << "\n";
  }
  EXPECT_THROW(coll.find_by_id(1), odm::ConnectionError);
  // The client goes on with what the proxy lets through.
  EXPECT_EQ(coll.count(), 3);
  EXPECT_EQ(coll.update_one(odm::field(&Counter::id) == 1, odm::field(&Counter::value).inc(1)).modified, 1);
}

}  // namespace
}  // namespace odm_test
