/* Check the odm test server through libmongoc (its handshake, OP_MSG with
 * document sequences, and the connection pool differ from pymongo's).
 *
 *   gcc -o c_check tests/server/c_check.c $(pkg-config --cflags --libs libmongoc-1.0) -lpthread
 *   ./c_check 'mongodb://127.0.0.1:PORT/?serverSelectionTimeoutMS=5000'
 *
 * Prints "N passed, M failed" and exits non-zero on failure.
 */
#include <mongoc/mongoc.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static int passed = 0;
static int failed = 0;

static void check(const char *name, bool cond, const char *detail) {
    if (cond) {
        passed++;
    } else {
        failed++;
        printf("FAIL %s %s\n", name, detail ? detail : "");
    }
}

static int64_t count_docs(mongoc_collection_t *coll, const bson_t *filter) {
    bson_error_t error;
    int64_t n = mongoc_collection_count_documents(coll, filter, NULL, NULL, NULL, &error);
    if (n < 0) printf("count_documents error: %s\n", error.message);
    return n;
}

typedef struct {
    mongoc_client_pool_t *pool;
    int index;
    int modified;
    pthread_barrier_t *barrier;
} worker_t;

static void *checkout_worker(void *arg) {
    worker_t *w = (worker_t *)arg;
    mongoc_client_t *client = mongoc_client_pool_pop(w->pool);
    mongoc_collection_t *coll = mongoc_client_get_collection(client, "odm_c_check", "books");
    char user[32];
    bson_snprintf(user, sizeof user, "user%d", w->index);
    bson_t *filter = BCON_NEW("_id", "book", "available", "{", "$gt", BCON_INT32(0), "}");
    bson_t *update = BCON_NEW("$inc", "{", "available", BCON_INT32(-1), "}",
                              "$push", "{", "borrowers", BCON_UTF8(user), "}");
    bson_t reply;
    bson_error_t error;
    pthread_barrier_wait(w->barrier);
    if (mongoc_collection_update_one(coll, filter, update, NULL, &reply, &error)) {
        bson_iter_t it;
        if (bson_iter_init_find(&it, &reply, "modifiedCount")) {
            w->modified = (int)bson_iter_as_int64(&it);
        }
    } else {
        printf("update_one error: %s\n", error.message);
        w->modified = -100;
    }
    bson_destroy(&reply);
    bson_destroy(filter);
    bson_destroy(update);
    mongoc_collection_destroy(coll);
    mongoc_client_pool_push(w->pool, client);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s MONGODB_URI\n", argv[0]);
        return 2;
    }
    mongoc_init();
    bson_error_t error;
    mongoc_uri_t *uri = mongoc_uri_new_with_error(argv[1], &error);
    if (!uri) {
        fprintf(stderr, "bad uri: %s\n", error.message);
        return 2;
    }

    /* ---- single-threaded client ---- */
    mongoc_client_t *client = mongoc_client_new_from_uri(uri);
    bson_t reply;
    bson_t *cmd = BCON_NEW("ping", BCON_INT32(1));
    bool ok = mongoc_client_command_simple(client, "admin", cmd, NULL, &reply, &error);
    check("ping", ok, error.message);
    bson_destroy(&reply);
    bson_destroy(cmd);

    cmd = BCON_NEW("buildInfo", BCON_INT32(1));
    ok = mongoc_client_command_simple(client, "admin", cmd, NULL, &reply, &error);
    bson_iter_t it;
    check("buildInfo odmTestServer marker",
          ok && bson_iter_init_find(&it, &reply, "odmTestServer") && bson_iter_as_bool(&it),
          error.message);
    bson_destroy(&reply);
    bson_destroy(cmd);

    mongoc_database_t *db = mongoc_client_get_database(client, "odm_c_check");
    mongoc_database_drop(db, NULL);
    mongoc_collection_t *coll = mongoc_client_get_collection(client, "odm_c_check", "items");

    bson_t *doc = BCON_NEW("_id", BCON_INT32(1), "name", BCON_UTF8("first"),
                           "big", BCON_INT64(5), "when", BCON_DATE_TIME(1700000000123));
    ok = mongoc_collection_insert_one(coll, doc, NULL, NULL, &error);
    check("insert_one", ok, error.message);
    bson_destroy(doc);

    /* insert_many goes out as an OP_MSG document sequence */
    bson_t *docs[250];
    for (int i = 0; i < 250; i++) {
        docs[i] = BCON_NEW("_id", BCON_INT32(100 + i), "v", BCON_INT32(i % 5));
    }
    ok = mongoc_collection_insert_many(coll, (const bson_t **)docs, 250, NULL, NULL, &error);
    check("insert_many 250", ok, error.message);
    for (int i = 0; i < 250; i++) bson_destroy(docs[i]);

    bson_t *empty = bson_new();
    check("count_documents", count_docs(coll, empty) == 251, NULL);

    bson_t *opts = BCON_NEW("batchSize", BCON_INT32(10), "sort", "{", "_id", BCON_INT32(1), "}");
    mongoc_cursor_t *cursor = mongoc_collection_find_with_opts(coll, empty, opts, NULL);
    const bson_t *found;
    int n = 0;
    bool in_order = true;
    int64_t last = -1;
    while (mongoc_cursor_next(cursor, &found)) {
        if (bson_iter_init_find(&it, found, "_id")) {
            int64_t id = bson_iter_as_int64(&it);
            if (id <= last) in_order = false;
            last = id;
        }
        n++;
    }
    check("find with batchSize 10 + getMore", n == 251 && in_order,
          mongoc_cursor_error(cursor, &error) ? error.message : NULL);
    mongoc_cursor_destroy(cursor);
    bson_destroy(opts);

    bson_t *filter = BCON_NEW("_id", BCON_INT32(1));
    cursor = mongoc_collection_find_with_opts(coll, filter, NULL, NULL);
    ok = mongoc_cursor_next(cursor, &found);
    check("find_one Int64 preserved",
          ok && bson_iter_init_find(&it, found, "big") && bson_iter_type(&it) == BSON_TYPE_INT64,
          NULL);
    check("find_one datetime ms preserved",
          ok && bson_iter_init_find(&it, found, "when") &&
              bson_iter_date_time(&it) == 1700000000123,
          NULL);
    mongoc_cursor_destroy(cursor);

    bson_t *update = BCON_NEW("$inc", "{", "big", BCON_INT32(1), "}");
    ok = mongoc_collection_update_one(coll, filter, update, NULL, &reply, &error);
    check("update_one", ok, error.message);
    bson_destroy(&reply);
    bson_destroy(update);
    cursor = mongoc_collection_find_with_opts(coll, filter, NULL, NULL);
    ok = mongoc_cursor_next(cursor, &found);
    check("$inc keeps int64",
          ok && bson_iter_init_find(&it, found, "big") && bson_iter_type(&it) == BSON_TYPE_INT64 &&
              bson_iter_int64(&it) == 6,
          NULL);
    mongoc_cursor_destroy(cursor);
    bson_destroy(filter);

    /* upsert */
    filter = BCON_NEW("name", BCON_UTF8("upserted"));
    update = BCON_NEW("$set", "{", "x", BCON_INT32(1), "}");
    opts = BCON_NEW("upsert", BCON_BOOL(true));
    ok = mongoc_collection_update_one(coll, filter, update, opts, &reply, &error);
    check("upsert reply has upsertedId", ok && bson_iter_init_find(&it, &reply, "upsertedId"),
          error.message);
    bson_destroy(&reply);
    bson_destroy(opts);
    bson_destroy(update);
    bson_destroy(filter);

    /* findAndModify */
    mongoc_find_and_modify_opts_t *fam = mongoc_find_and_modify_opts_new();
    update = BCON_NEW("$set", "{", "name", BCON_UTF8("renamed"), "}");
    mongoc_find_and_modify_opts_set_update(fam, update);
    mongoc_find_and_modify_opts_set_flags(fam, MONGOC_FIND_AND_MODIFY_RETURN_NEW);
    filter = BCON_NEW("_id", BCON_INT32(1));
    ok = mongoc_collection_find_and_modify_with_opts(coll, filter, fam, &reply, &error);
    bson_iter_t child;
    check("findAndModify returns new",
          ok && bson_iter_init_find(&it, &reply, "value") && BSON_ITER_HOLDS_DOCUMENT(&it) &&
              bson_iter_recurse(&it, &child) && bson_iter_find(&child, "name") &&
              strcmp(bson_iter_utf8(&child, NULL), "renamed") == 0,
          error.message);
    bson_destroy(&reply);
    bson_destroy(filter);
    bson_destroy(update);
    mongoc_find_and_modify_opts_destroy(fam);

    /* indexes (createIndexes command; libmongoc 1.23 has no index models) */
    cmd = BCON_NEW("createIndexes", BCON_UTF8("items"), "indexes", "[", "{",
                   "key", "{", "v", BCON_INT32(1), "}", "name", BCON_UTF8("v_1"), "}", "]");
    ok = mongoc_database_write_command_with_opts(db, cmd, NULL, &reply, &error);
    check("create index", ok && bson_iter_init_find(&it, &reply, "numIndexesAfter") &&
          bson_iter_as_int64(&it) == 2, error.message);
    bson_destroy(&reply);
    ok = mongoc_database_write_command_with_opts(db, cmd, NULL, &reply, &error);
    check("create index again (idempotent)",
          ok && bson_iter_init_find(&it, &reply, "note"), error.message);
    bson_destroy(&reply);
    bson_destroy(cmd);

    mongoc_collection_t *users = mongoc_client_get_collection(client, "odm_c_check", "users");
    cmd = BCON_NEW("createIndexes", BCON_UTF8("users"), "indexes", "[", "{",
                   "key", "{", "email", BCON_INT32(1), "}", "name", BCON_UTF8("email_1"),
                   "unique", BCON_BOOL(true), "}", "]");
    ok = mongoc_database_write_command_with_opts(db, cmd, NULL, NULL, &error);
    check("create unique index on users", ok, error.message);
    bson_destroy(cmd);
    doc = BCON_NEW("email", BCON_UTF8("a@x"));
    ok = mongoc_collection_insert_one(users, doc, NULL, NULL, &error);
    check("insert user", ok, error.message);
    bson_destroy(doc);
    doc = BCON_NEW("email", BCON_UTF8("a@x"));
    ok = mongoc_collection_insert_one(users, doc, NULL, &reply, &error);
    check("duplicate insert fails with 11000", !ok && error.code == 11000, error.message);
    bson_destroy(&reply);
    bson_destroy(doc);
    mongoc_collection_destroy(users);

    /* Decimal128 equality */
    bson_decimal128_t d1, d2;
    bson_decimal128_from_string("2.0990", &d1);
    bson_decimal128_from_string("2.099", &d2);
    doc = BCON_NEW("_id", BCON_UTF8("price"), "p", BCON_DECIMAL128(&d1));
    ok = mongoc_collection_insert_one(coll, doc, NULL, NULL, &error);
    bson_destroy(doc);
    filter = BCON_NEW("p", BCON_DECIMAL128(&d2));
    check("Decimal128 2.0990 == 2.099", ok && count_docs(coll, filter) == 1, NULL);
    bson_destroy(filter);

    /* refusal surfaces as an error with code 115 */
    filter = BCON_NEW("_id", BCON_INT32(1));
    update = BCON_NEW("$set", "{", "x", BCON_INT32(1), "}");
    opts = BCON_NEW("collation", "{", "locale", BCON_UTF8("en"), "}");
    ok = mongoc_collection_update_one(coll, filter, update, opts, NULL, &error);
    check("collation refused with 115", !ok && error.code == 115 &&
          strstr(error.message, "odm test server does not support") != NULL, error.message);
    bson_destroy(opts);
    bson_destroy(update);
    bson_destroy(filter);

    /* delete */
    filter = BCON_NEW("v", BCON_INT32(0));
    ok = mongoc_collection_delete_many(coll, filter, NULL, &reply, &error);
    check("delete_many", ok && bson_iter_init_find(&it, &reply, "deletedCount") &&
          bson_iter_as_int64(&it) == 50, error.message);
    bson_destroy(&reply);
    bson_destroy(filter);

    /* ---- pooled clients: 20 threads race for 3 copies ---- */
    mongoc_collection_t *books = mongoc_client_get_collection(client, "odm_c_check", "books");
    doc = BCON_NEW("_id", "book", "available", BCON_INT32(3), "borrowers", "[", "]");
    ok = mongoc_collection_insert_one(books, doc, NULL, NULL, &error);
    check("insert book", ok, error.message);
    bson_destroy(doc);

    mongoc_client_pool_t *pool = mongoc_client_pool_new(uri);
    mongoc_client_pool_max_size(pool, 20);
    pthread_t threads[20];
    worker_t workers[20];
    pthread_barrier_t barrier;
    pthread_barrier_init(&barrier, NULL, 20);
    for (int i = 0; i < 20; i++) {
        workers[i].pool = pool;
        workers[i].index = i;
        workers[i].modified = 0;
        workers[i].barrier = &barrier;
        pthread_create(&threads[i], NULL, checkout_worker, &workers[i]);
    }
    int total = 0;
    for (int i = 0; i < 20; i++) {
        pthread_join(threads[i], NULL);
        total += workers[i].modified;
    }
    pthread_barrier_destroy(&barrier);
    char detail[64];
    bson_snprintf(detail, sizeof detail, "modified total %d", total);
    check("pooled 20-thread checkout: exactly 3 succeed", total == 3, detail);
    filter = BCON_NEW("_id", "book", "available", BCON_INT32(0));
    check("book has 0 available", count_docs(books, filter) == 1, NULL);
    bson_destroy(filter);
    mongoc_client_pool_destroy(pool);
    mongoc_collection_destroy(books);

    ok = mongoc_database_drop(db, &error);
    check("drop database", ok, error.message);

    bson_destroy(empty);
    mongoc_collection_destroy(coll);
    mongoc_database_destroy(db);
    mongoc_client_destroy(client);
    mongoc_uri_destroy(uri);
    mongoc_cleanup();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
