// children_of with a limit per parent, in both of its forms: `$unionWith` (MongoDB 4.4+,
// wire version 9) and one find per parent (older servers). The form follows the wire
// version the client read from its server; odm::detail::assume_max_wire_version makes the
// client act as if its server were older, so the older servers' form runs on every engine.

#include <odm/join/join.hpp>
#include <odm/odm.hpp>

#include "../driver/support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <iostream>
#include <map>
#include <string>
#include <vector>

namespace {

using namespace std::chrono;

struct Host {
  std::int64_t id = 0;
  std::string name;
  struct odm_model {
    static constexpr std::string_view collection = "hosts";
  };
};

struct LogMessage {
  std::int64_t id = 0;
  system_clock::time_point time;
  std::string message;
  odm::ParentRef<Host> host;
  struct odm_model {
    static constexpr std::string_view collection = "logmsg";
  };
};

class ChildrenForms : public odm_test::DriverTest {
 protected:
  /// Host h has counts[h] messages; message times tie in pairs, so the order needs the _id
  /// as the second sort key.
  void store(const std::vector<int>& counts) {
    std::int64_t next = 1;
    const auto start = sys_days(year(2014) / 3 / 28);
    for (std::size_t h = 0; h < counts.size(); ++h) {
      hosts_.push_back({static_cast<std::int64_t>(h + 1), "host" + std::to_string(h + 1)});
      for (int m = 0; m < counts[h]; ++m, ++next)
        messages_.push_back({next, start + minutes(m / 2), "h" + std::to_string(h + 1) + " m" + std::to_string(m),
                             odm::ParentRef<Host>(hosts_.back().id)});
    }
    db().collection<Host>().insert_many(hosts_);
    if (!messages_.empty()) db().collection<LogMessage>().insert_many(messages_);
  }

  /// The reference: every host's messages, newest first (ties: larger _id first), cut to `limit`.
  std::vector<std::vector<std::int64_t>> expected(const std::vector<Host>& page, std::size_t limit) const {
    std::vector<std::vector<std::int64_t>> result;
    for (const Host& host : page) {
      std::vector<const LogMessage*> mine;
      for (const LogMessage& message : messages_)
        if (*message.host.id() == host.id) mine.push_back(&message);
      std::sort(mine.begin(), mine.end(), [](const LogMessage* a, const LogMessage* b) {
        return a->time != b->time ? a->time > b->time : a->id > b->id;
      });
      std::vector<std::int64_t> ids;
      for (std::size_t i = 0; i < mine.size() && i < limit; ++i) ids.push_back(mine[i]->id);
      result.push_back(ids);
    }
    return result;
  }

  static std::vector<std::vector<std::int64_t>> ids_of(const std::vector<std::vector<LogMessage>>& children) {
    std::vector<std::vector<std::int64_t>> result;
    for (const auto& list : children) {
      std::vector<std::int64_t> ids;
      for (const LogMessage& message : list) ids.push_back(message.id);
      result.push_back(ids);
    }
    return result;
  }

  static odm::ChildrenOptions<LogMessage> newest(std::size_t limit, std::size_t parents_per_query = 100) {
    odm::ChildrenOptions<LogMessage> options;
    options.sort_by(odm::sort(odm::desc(&LogMessage::time), odm::desc(&LogMessage::id))).limit(limit);
    options.parents_per_query = parents_per_query;
    return options;
  }

  /// Hosts with no message, one, fewer than the limit of 4, exactly 4, and many more; the
  /// page repeats one host (it gets the same children again) and starts with a host that
  /// does not exist (no messages: an empty list).
  std::vector<Host> mixed_page() {
    store({0, 1, 3, 4, 9, 25, 2});
    std::vector<Host> page = hosts_;
    page.push_back(hosts_[5]);
    page.insert(page.begin(), Host{999, "unknown host"});
    return page;
  }

  std::vector<Host> hosts_;
  std::vector<LogMessage> messages_;
};

TEST_F(ChildrenForms, TheWireVersionIsReadFromTheServerOnceAndKept) {
  const std::int32_t version = odm::detail::max_wire_version(db());
  switch (engine()) {
    case odm_test::Engine::odm_test_server: EXPECT_EQ(version, 21) << "it presents itself as MongoDB 7.0"; break;
    case odm_test::Engine::mongo_java_server: EXPECT_EQ(version, 8) << "its hello says maxWireVersion 8 (4.2)"; break;
    case odm_test::Engine::mongodb: EXPECT_GE(version, 6) << "libmongoc 1.23 talks to MongoDB 3.6 and later"; break;
  }
  // Kept on the client: a copy of the client, and every database of it, sees the value the
  // first call read, or the one a test put there.
  odm::detail::assume_max_wire_version(db(), 8);
  EXPECT_EQ(odm::detail::max_wire_version(client().database("other")), 8);
  EXPECT_EQ(log_.started("hello") + log_.started("isMaster"), 0) << "read from the topology, not asked per call";
  // Another client reads its own.
  odm::Client other(uri_);
  EXPECT_EQ(odm::detail::max_wire_version(other.database(db_name_)), version);
}

TEST_F(ChildrenForms, OneFindPerParentOnAServerOlderThan44) {
  const std::vector<Host> page = mixed_page();
  odm::detail::assume_max_wire_version(db(), 8);
  log_.clear();
  const auto children = odm::children_of(db(), page, &LogMessage::host, newest(4, 3));
  EXPECT_EQ(ids_of(children), expected(page, 4));
  EXPECT_EQ(log_.started("find"), static_cast<int>(hosts_.size() + 1)) << "one per distinct parent";
  EXPECT_EQ(log_.started("aggregate"), 0);
  EXPECT_EQ(log_.started("getMore"), 0);
  const auto sent = log_.last("find");
  ASSERT_TRUE(sent.has_value());
  bson_iter_t it;
  ASSERT_TRUE(bson_iter_init_find(&it, sent->get(), "limit"));
  EXPECT_EQ(bson_iter_as_int64(&it), 4);
  ASSERT_TRUE(bson_iter_init_find(&it, sent->get(), "batchSize"));
  EXPECT_EQ(bson_iter_as_int64(&it), 4) << "the whole limit in the first reply: one round trip per parent";
}

TEST_F(ChildrenForms, OneUnionWithAggregatePerBatchOfParentsFrom44On) {
  ODM_REQUIRE(union_with);
  const std::vector<Host> page = mixed_page();
  odm::detail::assume_max_wire_version(db(), 9);
  log_.clear();
  const auto children = odm::children_of(db(), page, &LogMessage::host, newest(4, 3));
  EXPECT_EQ(ids_of(children), expected(page, 4));
  EXPECT_EQ(log_.started("aggregate"), static_cast<int>((hosts_.size() + 1 + 2) / 3)) << "3 parents per query";
  EXPECT_EQ(log_.started("find"), 0);
  EXPECT_EQ(log_.started("getMore"), 0);
}

TEST_F(ChildrenForms, AFindPerParentReadsALimitAboveTheFirstBatchInOneRoundTrip) {
  // MongoDB answers 101 documents first unless told otherwise; a limit of 150 still
  // comes in one reply per parent.
  store({200, 160});
  odm::detail::assume_max_wire_version(db(), 8);
  log_.clear();
  const auto children = odm::children_of(db(), hosts_, &LogMessage::host, newest(150));
  EXPECT_EQ(ids_of(children), expected(hosts_, 150));
  EXPECT_EQ(log_.started("find"), 2);
  EXPECT_EQ(log_.started("getMore"), 0);
}

TEST_F(ChildrenForms, RoundTripsOfEachForm) {
  // 20 hosts × 150 messages, the newest 10 of each; printed for the README and the report.
  store(std::vector<int>(20, 150));
  const auto want = expected(hosts_, 10);
  const auto round_trips = [&] { return log_.started("find") + log_.started("aggregate") + log_.started("getMore"); };

  odm::detail::assume_max_wire_version(db(), 8);
  log_.clear();
  EXPECT_EQ(ids_of(odm::children_of(db(), hosts_, &LogMessage::host, newest(10))), want);
  const int finds = round_trips();
  EXPECT_EQ(finds, 20) << "one find per host";

  // The form odm does not use: one $in find sorted by host and time, cut on the client.
  log_.clear();
  std::vector<std::int64_t> ids;
  for (const Host& host : hosts_) ids.push_back(host.id);
  std::map<std::int64_t, std::vector<std::int64_t>> cut;
  std::size_t read = 0;
  for (const LogMessage& message :
       db().collection<LogMessage>().find(odm::field(&LogMessage::host).in(ids),
                                          odm::FindOptions<LogMessage>{}.sort(odm::sort(odm::asc(&LogMessage::host),
                                                                            odm::desc(&LogMessage::time),
                                                                            odm::desc(&LogMessage::id))))) {
    ++read;
    auto& list = cut[*message.host.id()];
    if (list.size() < 10) list.push_back(message.id);
  }
  std::vector<std::vector<std::int64_t>> cut_ids;
  for (const Host& host : hosts_) cut_ids.push_back(cut[host.id]);
  EXPECT_EQ(cut_ids, want);
  EXPECT_EQ(read, 3000u) << "every message of every host crosses the wire";
  const int in_and_cut = round_trips();

  std::cout << "children_of, 20 hosts x 150 messages, newest 10 each: one find per host " << finds
            << " round trips (200 documents read); $in + sort + client-side cut " << in_and_cut
            << " round trips (3000 documents read)";
  if (!missing_capability(odm_test::Capability::union_with)) {
    odm::detail::assume_max_wire_version(db(), 9);
    log_.clear();
    EXPECT_EQ(ids_of(odm::children_of(db(), hosts_, &LogMessage::host, newest(10))), want);
    const int unions = round_trips();
    EXPECT_EQ(log_.started("aggregate"), 1);
    EXPECT_EQ(unions, 1) << "the 200 documents in the aggregate's first reply";
    std::cout << "; $unionWith " << unions << " round trips (200 documents read)";
  }
  std::cout << "\n";
}

}  // namespace
