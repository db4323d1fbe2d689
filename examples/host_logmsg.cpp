// One-to-squillions with parent references (seed 004): a host writes an endless stream of
// log messages. No host document could hold them, not even their ids (16 MB), so each
// message names its host (`host: ObjectId(...)`), the `host` field is indexed, and the
// application asks for the newest messages of a host:
//
//   > host = db.hosts.findOne({ipaddr : '127.66.66.66'});
//   > last_5k_msg = db.logmsg.find({host: host._id}).sort({time : -1}).limit(5000).toArray()
//
// Here two hosts write 6,000 messages each; odm::children_of reads the newest 5,000 of
// each host in one command for both.
#include "example_support.hpp"

#include <odm/join/join.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace {

using Timestamp = std::chrono::system_clock::time_point;

struct Host {
  odm::ObjectId id;
  std::string name;
  std::string ipaddr;
  bool operator==(const Host&) const = default;
  struct odm_model {
    static constexpr std::string_view collection = "hosts";
    static constexpr auto indexes = odm::indexes(odm::index(&Host::ipaddr).unique());
  };
};

struct LogMessage {
  odm::ObjectId id;  // not in the seed's listing; the server would add one anyway
  Timestamp time;
  std::string message;
  odm::ParentRef<Host> host;
  struct odm_model {
    static constexpr std::string_view collection = "logmsg";
    // The newest messages of a host: {host: 1, time: -1}.
    static constexpr auto indexes =
        odm::indexes(odm::index(&LogMessage::host, odm::key(&LogMessage::time, odm::descending)));
  };
};

constexpr int kPerHost = 6000;
constexpr std::size_t kNewest = 5000;

}  // namespace

int main() {
  using example::check;
  using example::instant;
  using example::oid;
  using namespace std::chrono;
  return example::run([] {
    const odm::Client client = example::connect();
    const odm::Database db = example::examples_db(client);
    auto hosts = db.collection<Host>();
    auto messages = db.collection<LogMessage>();
    hosts.drop();
    messages.drop();

    example::step("store the hosts");
    const std::vector<Host> stored_hosts{
        Host{oid("00000000000000000000aaab"), "goofy.example.com", "127.66.66.66"},
        Host{oid("00000000000000000000aaac"), "mickey.example.com", "127.66.66.67"},
    };
    hosts.insert_many(stored_hosts);
    example::show_all("hosts", stored_hosts);
    example::sync_indexes<Host, LogMessage>(db);

    example::step("store 6,000 messages per host; goofy's newest is the seed's 'cpu is on fire!'");
    const Timestamp on_fire = instant(2014, 3, 28, 9, 42, 41, 284);
    std::vector<LogMessage> written;
    written.reserve(2 * kPerHost);
    for (int i = kPerHost - 1; i >= 0; --i) {
      for (const Host& host : stored_hosts) {
        LogMessage message;
        message.time = on_fire - seconds(i);
        message.message = i == 0 && host.name == "goofy.example.com"
                              ? "cpu is on fire!"
                              : host.name + ": message " + std::to_string(kPerHost - i);
        message.host = host.id;
        written.push_back(std::move(message));
      }
    }
    const auto inserted = messages.insert_many(written);
    std::cout << "inserted " << inserted.inserted << " log messages\n";
    example::show("the seed's message", written[written.size() - 2]);
    check(inserted.inserted == 2 * kPerHost, "all 12,000 messages are stored");

    example::step("the seed's query for one host: {host: host._id}, sort {time: -1}, limit 5000");
    const std::optional<Host> goofy = hosts.find_one(odm::field(&Host::ipaddr) == "127.66.66.66");
    check(goofy.has_value() && goofy->name == "goofy.example.com", "goofy is found by its ipaddr");
    const auto last_5k = messages
                             .find(odm::field(&LogMessage::host) == goofy->id,
                                   odm::FindOptions<LogMessage>{}
                                       .sort(odm::sort(odm::desc(&LogMessage::time)))
                                       .limit(static_cast<std::int64_t>(kNewest)))
                             .to_vector();
    std::cout << "read " << last_5k.size() << " messages of goofy\n";
    example::show("newest", last_5k.front());
    check(last_5k.size() == kNewest, "exactly 5,000 messages");
    check(last_5k.front().message == "cpu is on fire!" && last_5k.front().time == on_fire,
          "the newest is the seed's message, at 2014-03-28T09:42:41.284Z");

    example::step("the newest 5,000 of every host at once: odm::children_of");
    // With a limit per host: one aggregate with a $unionWith branch per host on MongoDB 4.4+,
    // one find per host on an older server (mongo-java-server says it is 4.2).
    odm::ChildrenOptions<LogMessage> newest;
    newest.sort_by(odm::sort(odm::desc(&LogMessage::time))).limit(kNewest);
    const auto per_host = odm::children_of(db, stored_hosts, &LogMessage::host, newest);
    check(per_host.size() == 2, "one list per host");
    for (std::size_t h = 0; h < per_host.size(); ++h) {
      const auto& list = per_host[h];
      std::cout << stored_hosts[h].name << ": " << list.size() << " messages, newest \"" << list.front().message
                << "\", oldest \"" << list.back().message << "\"\n";
      check(list.size() == kNewest, stored_hosts[h].name + ": exactly 5,000 messages");
      bool own = true, ordered = true;
      for (std::size_t i = 0; i < list.size(); ++i) {
        if (*list[i].host.id() != stored_hosts[h].id) own = false;
        if (i > 0 && list[i - 1].time <= list[i].time) ordered = false;
      }
      check(own, stored_hosts[h].name + ": every message is the host's own");
      check(ordered, stored_hosts[h].name + ": newest first");
      check(list.back().time == on_fire - seconds(kNewest - 1),
            stored_hosts[h].name + ": the 1,000 oldest are left out");
    }
    check(per_host[0].front().message == "cpu is on fire!", "goofy's newest is 'cpu is on fire!'");
  });
}
