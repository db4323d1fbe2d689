#pragma once
// Models whose index plans the index tests check.

#include <odm/index/index.hpp>
#include <odm/odm.hpp>

#include <chrono>
#include <string>
#include <vector>

namespace index_models {

struct Volume {
  odm::ObjectId id;
  std::string title;
  std::string author;
  std::int32_t published = 0;
  std::vector<std::string> topics;
  struct odm_model {
    static constexpr std::string_view collection = "volumes";
    static constexpr auto indexes = odm::indexes(odm::index(&Volume::topics));  // keyword search, one line
  };
};

struct Host {
  odm::ObjectId id;
  std::string name;
  std::string ipaddr;
  struct odm_model {
    static constexpr std::string_view collection = "hosts";
    static constexpr auto indexes = odm::indexes(odm::index(&Host::ipaddr).unique());
  };
};

struct LogMessage {
  odm::ObjectId id;
  std::chrono::system_clock::time_point time;
  std::string message;
  odm::ParentRef<Host> host;
  struct odm_model {
    static constexpr std::string_view collection = "logmsg";
    // The newest messages of a host; it also serves the implied {host: 1} (an index prefix).
    static constexpr auto indexes =
        odm::indexes(odm::index(&LogMessage::host, odm::key(&LogMessage::time, odm::descending)));
  };
};

struct Category {
  std::string id;
  odm::RefMany<Category> children;
  struct odm_model {
    static constexpr std::string_view collection = "categories";
  };
};

struct TreeNode {
  std::string id;
  odm::ParentRef<TreeNode> parent;
  struct odm_model {
    static constexpr std::string_view collection = "categories";
  };
};

struct Product;

struct Review {
  std::int32_t review_id = 0;
  odm::ParentRef<Product> product_id;
  std::string review_author;
  std::chrono::sys_days published_date{};
  struct odm_model {
    static constexpr std::string_view collection = "review";
    static constexpr auto key = &Review::review_id;
  };
};

struct Product {
  std::int32_t id = 0;
  std::string name;
  odm::Subset<Review, 10, &Review::published_date> reviews;
  struct odm_model {
    static constexpr std::string_view collection = "product";
  };
};

struct Session {
  odm::ObjectId id;
  std::string user;
  std::chrono::system_clock::time_point created;
  std::int32_t rating = 0;
  std::optional<std::string> email;
  struct odm_model {
    static constexpr std::string_view collection = "sessions";
    static constexpr auto indexes = odm::indexes(
        odm::index(&Session::created).expire_after(std::chrono::hours(1)),
        odm::index(&Session::user, odm::key(&Session::rating, odm::descending)).named("user_rating"),
        odm::index(&Session::email).unique().sparse(),
        odm::index(&Session::rating).partial(R"({"rating": {"$gt": 5}})"));
  };
};

/// A partial index on a ParentRef field: it indexes only the severe messages, so it cannot
/// serve "all messages of a host"; the full index the reference implies must stay planned.
struct SevereMessage {
  odm::ObjectId id;
  std::int32_t severity = 0;
  odm::ParentRef<Host> host;
  struct odm_model {
    static constexpr std::string_view collection = "severe_logmsg";
    static constexpr auto indexes =
        odm::indexes(odm::index(&SevereMessage::host).partial(R"({"severity": {"$gt": 3}})"));
  };
};

/// A sparse index on a ParentRef field: it leaves out the roots (no parent).
struct SparseNode {
  std::string id;
  odm::ParentRef<SparseNode> parent;
  struct odm_model {
    static constexpr std::string_view collection = "sparse_nodes";
    static constexpr auto indexes = odm::indexes(odm::index(&SparseNode::parent).sparse());
  };
};

/// A partial compound index that starts with the ParentRef field.
struct RecentMessage {
  odm::ObjectId id;
  std::chrono::system_clock::time_point time;
  odm::ParentRef<Host> host;
  struct odm_model {
    static constexpr std::string_view collection = "recent_logmsg";
    static constexpr auto indexes = odm::indexes(
        odm::index(&RecentMessage::host, odm::key(&RecentMessage::time, odm::descending))
            .partial(R"({"time": {"$gt": {"$date": "2026-01-01T00:00:00Z"}}})"));
  };
};

}  // namespace index_models
