// Orders, their line items, the products and the products' categories: a join through
// embedded documents (issue 13, items 3 and 8).
//
// An order embeds its line items (read with the order, never without it: one-to-few), and
// each line item references a product, a document of its own shared by many orders; a
// product references its category. Mongoose writes `populate('items.product')`; odm names
// the path with member pointers, checked when it compiles:
//
//   odm::with(&Order::items, odm::with(&LineItem::product, odm::with(&Product::category)))
//
// It costs one find per level for the whole list of orders, however many orders and items
// there are: the orders, then every line item's product in one `$in`, then every product's
// category in one more. Looking a product up per line item would take a round trip per
// item and level instead; the example counts both with command monitoring.
//
// The same join can run on the server (odm::find_joined with JoinOptions::side = server):
// one aggregate whose `$lookup` stages bring each order's products and their categories,
// one round trip in all, for the same result. It pays when the server is far away; the
// price is bytes, since each order carries its own copy of its products.
//
// Prices are odm::Decimal (NumberDecimal), never double: the line totals and the order
// totals are exact to the cent.
#include "example_support.hpp"

#include <odm/join/join.hpp>
#include <odm/join/lookup.hpp>

#include <atomic>
#include <cstdint>
#include <iostream>
#include <set>
#include <string>
#include <vector>

namespace {

struct Category {
  std::string id;
  std::string name;
  struct odm_model {
    static constexpr std::string_view collection = "product_categories";
  };
};

struct Product {
  std::string id;  // the SKU
  std::string name;
  odm::Decimal price;
  odm::Ref<Category> category;
  struct odm_model {
    static constexpr std::string_view collection = "order_products";
  };
};

struct LineItem {
  odm::Ref<Product> product;
  std::int32_t quantity = 0;
  odm::Decimal unit_price;  // the price when the order was placed
};

struct Order {
  std::int64_t id = 0;
  std::string customer;
  std::vector<odm::Embedded<LineItem>> items;
  struct odm_model {
    static constexpr std::string_view collection = "orders";
  };
};

std::atomic<int> commands{0};

}  // namespace

int main() {
  using example::check;
  return example::run([] {
    const odm::Client client = example::connect(odm::ClientOptions{}.on_command_started([](const odm::CommandEvent&) { ++commands; }));
    const odm::Database db = example::examples_db(client);
    db.collection<Category>().drop();
    db.collection<Product>().drop();
    db.collection<Order>().drop();

    example::step("store three categories, five products and twenty orders of line items");
    const std::vector<Category> categories{{"tools", "Tools"}, {"garden", "Garden"}, {"kitchen", "Kitchen"}};
    db.collection<Category>().insert_many(categories);
    const std::vector<Product> products{
        {"SKU-100", "claw hammer", odm::Decimal("12.99"), odm::Ref<Category>("tools")},
        {"SKU-101", "tape measure", odm::Decimal("7.49"), odm::Ref<Category>("tools")},
        {"SKU-200", "watering can", odm::Decimal("15.00"), odm::Ref<Category>("garden")},
        {"SKU-201", "pruning shears", odm::Decimal("21.35"), odm::Ref<Category>("garden")},
        {"SKU-300", "chef's knife", odm::Decimal("49.90"), odm::Ref<Category>("kitchen")},
    };
    db.collection<Product>().insert_many(products);
    example::show_all("products", products);
    std::vector<Order> orders;
    std::size_t line_items = 0;
    for (std::int64_t o = 1; o <= 20; ++o) {
      Order order{o, "customer " + std::to_string(o % 7), {}};
      const auto count = static_cast<std::size_t>(1 + o % 4);
      for (std::size_t i = 0; i < count; ++i) {
        const Product& product = products[(static_cast<std::size_t>(o) + 2 * i) % products.size()];
        order.items.emplace_back(LineItem{odm::Ref<Product>(product.id), static_cast<std::int32_t>(1 + i), product.price});
      }
      line_items += count;
      orders.push_back(std::move(order));
    }
    db.collection<Order>().insert_many(orders);
    example::show("order 1", orders[0]);
    std::cout << orders.size() << " orders, " << line_items << " line items\n";

    example::step("the orders with every line item's product and its category, one find per level");
    commands = 0;
    const std::vector<Order> loaded = db.collection<Order>()
                                          .find({}, odm::FindOptions<Order>{}.sort(odm::sort(odm::asc(&Order::id))))
                                          .with(&Order::items, odm::with(&LineItem::product, odm::with(&Product::category)));
    const int round_trips = commands;
    std::cout << "round trips: " << round_trips << " (the orders, their products, the products' categories)\n";
    check(round_trips == 3, "three round trips for 20 orders and " + std::to_string(line_items) + " line items");
    std::cout << "one find per line item and level would take 1 + " << line_items << " + " << line_items << " = "
              << 1 + 2 * line_items << "\n";

    check(loaded.size() == orders.size(), "every order is read back");
    std::set<const Product*> distinct;
    for (const Order& order : loaded) {
      odm::Decimal total("0");
      std::cout << "order " << order.id << " (" << order.customer << "):\n";
      for (const auto& line : order.items) {
        const Product& product = *line->product;
        distinct.insert(&product);
        const odm::Decimal amount = line->unit_price * odm::Decimal(std::to_string(line->quantity));
        total = total + amount;
        std::cout << "  " << line->quantity << " x " << product.name << " [" << product.category->name << "] at "
                  << line->unit_price.to_string() << " = " << amount.to_string() << "\n";
      }
      std::cout << "  total " << total.to_string() << "\n";
    }
    check(distinct.size() == products.size(), "each product is one shared object, however many items name it");
    const LineItem& first = *loaded[0].items[0];
    check(first.product->id == "SKU-101" && first.product->category->id == "tools",
          "order 1's first item is the tape measure, in Tools");
    check(loaded[2].items.size() == 4 && loaded[2].items[3]->product->name == "chef's knife" &&
              loaded[2].items[3]->product->category->name == "Kitchen",
          "order 3's fourth item is the chef's knife, in Kitchen");

    example::step("the same join on the server: one aggregate, its $lookup stages bringing every level");
    const odm::Document build_info = db.run_command(odm::Document::from_json(R"({"buildInfo": 1})"));
    bson_iter_t marker;
    if (bson_iter_init_find(&marker, build_info.get(), "odmJavaServer")) {
      // Its $lookup reads no localField through an array of documents ("items.product").
      std::cout << "SKIPPED: the server-side join: mongo-java-server's $lookup finds nothing through arrays of "
                   "documents\n";
    } else {
      odm::JoinOptions on_server;
      on_server.side = odm::JoinSide::server;
      commands = 0;
      const odm::Resolved<Order> joined =
          odm::find_joined(db, {}, odm::sort(odm::asc(&Order::id)), on_server,
                           odm::with(&Order::items, odm::with(&LineItem::product, odm::with(&Product::category))));
      const int server_round_trips = commands;
      std::cout << "round trips: " << server_round_trips << " (one aggregate), against " << round_trips
                << " for the client-side join\n";
      check(server_round_trips == 1, "one round trip for the orders, their products and the products' categories");
      bool same = joined.size() == loaded.size();
      for (std::size_t o = 0; same && o < loaded.size(); ++o) {
        same = joined[o].id == loaded[o].id && joined[o].items.size() == loaded[o].items.size();
        for (std::size_t i = 0; same && i < loaded[o].items.size(); ++i) {
          const Product& here = *joined[o].items[i]->product;
          const Product& there = *loaded[o].items[i]->product;
          same = here.id == there.id && here.price == there.price && here.category->name == there.category->name;
        }
      }
      check(same, "the server-side join reads the same products and categories, item by item");
      std::cout << "order 3's fourth item: " << joined[2].items[3]->product->name << " ["
                << joined[2].items[3]->product->category->name << "]\n";
    }

    example::step("a product that no longer exists: the line item stays, unresolved, with its id");
    db.collection<Product>().delete_one(odm::field(&Product::id) == std::string("SKU-300"));
    commands = 0;
    std::vector<Order> again = db.collection<Order>().find(odm::field(&Order::id) == std::int64_t{2}).to_vector();
    odm::resolve(db, again, odm::with(&Order::items, odm::with(&LineItem::product)));
    std::cout << "round trips: " << static_cast<int>(commands) << "\n";
    const LineItem& knife = *again.at(0).items.at(1);
    check(knife.product.is_dangling() && knife.product.id() == "SKU-300",
          "order 2's knife is dangling (Dangling::keep), its SKU kept");
    db.collection<Product>().insert_one(products[4]);  // leave the data whole for inspection
  });
}
