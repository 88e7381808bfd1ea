"""Loads the shop's raw tables (schema `raw`), which dbt reads as sources.

Stands in for the loader a real warehouse has: it (re)creates raw.customers, raw.orders,
raw.order_items and raw.payments from deterministic data, every row stamped with `loaded_at`,
the column `dbt source freshness` reads. Batches are cumulative, so a history can be replayed:

    python load_sources.py                  # batch 1: the first two months of orders
    python load_sources.py --batches 2      # and batch 2: March's orders, status changes and
                                            # two customers' new emails (incremental + snapshot)
    python load_sources.py --age-hours 30   # the newest load 30 hours old: freshness errors

Run it with the venv's Python (it needs only the duckdb package) from the project directory:
the database path resolves as dbt resolves profiles.yml's, from DBTATTIC_EXAMPLE_DB or
target/example.duckdb, relative to where dbt runs.
"""

import argparse
import os
import random
from datetime import datetime, timedelta, timezone
from pathlib import Path

import duckdb

PRODUCT_PRICES = {1: 4500, 2: 1800, 3: 12900, 4: 21000, 5: 6500, 6: 2200, 7: 3900, 8: 15800}
FIRST_NAMES = ["Ada", "Bram", "Chloe", "Dmitri", "Elin", "Femi", "Greta", "Hiro", "Ines", "Jonas", "Kaja", "Luca"]
LAST_NAMES = ["Abbott", "Berg", "Castillo", "Dufour", "Eriksen", "Fontaine", "Gallo", "Hayes", "Ito", "Jansen"]
COUNTRIES = ["DE", "FR", "NL", "GB", "US", "JP"]
PAID_STATUSES = ("shipped", "completed", "returned")

TABLES = {
    "customers": "customer_id integer, first_name varchar, last_name varchar, email varchar,"
    " country_code varchar, created_at timestamp, updated_at timestamp, loaded_at timestamp",
    "orders": "order_id integer, customer_id integer, ordered_at timestamp, status varchar,"
    " updated_at timestamp, loaded_at timestamp",
    "order_items": "order_item_id integer, order_id integer, product_id integer, quantity integer,"
    " loaded_at timestamp",
    "payments": "payment_id integer, order_id integer, payment_method varchar, amount_cents integer,"
    " paid_at timestamp, loaded_at timestamp",
}


class Shop:
    """The raw tables' rows as dicts keyed by id, built up batch by batch."""

    def __init__(self):
        self.rng = random.Random(43)
        self.customers, self.orders, self.items, self.payments = {}, {}, {}, {}

    def add_customer(self, customer_id, created_at, loaded_at):
        first, last = self.rng.choice(FIRST_NAMES), self.rng.choice(LAST_NAMES)
        self.customers[customer_id] = dict(
            customer_id=customer_id, first_name=first, last_name=last,
            email=f"{first}.{last}{customer_id}@example.com".lower(),
            country_code=self.rng.choice(COUNTRIES), created_at=created_at, updated_at=created_at,
            loaded_at=loaded_at)

    def add_order(self, order_id, customer_id, ordered_at, status, loaded_at):
        self.orders[order_id] = dict(order_id=order_id, customer_id=customer_id, ordered_at=ordered_at,
                                     status=status, updated_at=ordered_at, loaded_at=loaded_at)
        for _ in range(self.rng.randint(1, 3)):
            item_id = len(self.items) + 1
            self.items[item_id] = dict(order_item_id=item_id, order_id=order_id,
                                       product_id=self.rng.randint(1, 8),
                                       quantity=self.rng.randint(1, 3), loaded_at=loaded_at)
        if status in PAID_STATUSES:
            self.pay(order_id, ordered_at + timedelta(hours=2), loaded_at)

    def set_status(self, order_id, status, at, loaded_at):
        order = self.orders[order_id]
        if order["status"] not in PAID_STATUSES and status in PAID_STATUSES:
            self.pay(order_id, at, loaded_at)
        order.update(status=status, updated_at=at, loaded_at=loaded_at)

    def pay(self, order_id, paid_at, loaded_at):
        """Pays the order's total: by card, or part gift card and the rest by bank transfer."""
        total = sum(PRODUCT_PRICES[i["product_id"]] * i["quantity"]
                    for i in self.items.values() if i["order_id"] == order_id)
        split = [("card", total)]
        if self.rng.random() < 0.25 and total > 2500:
            split = [("gift_card", 2500), ("bank_transfer", total - 2500)]
        for method, amount in split:
            payment_id = len(self.payments) + 1
            self.payments[payment_id] = dict(payment_id=payment_id, order_id=order_id, payment_method=method,
                                             amount_cents=amount, paid_at=paid_at, loaded_at=loaded_at)


def batch_one(shop, loaded_at):
    """January and February: 20 customers, 60 orders (the first few before trading began)."""
    start = datetime(2025, 1, 2, 9, 0)
    for customer_id in range(1, 21):
        shop.add_customer(customer_id, start - timedelta(days=30 - customer_id), loaded_at)
    for order_id in range(1, 61):
        ordered_at = start + timedelta(hours=order_id * 23 + shop.rng.randint(0, 5))
        status = "placed" if order_id > 52 else shop.rng.choice(["shipped", "completed", "completed", "returned"])
        shop.add_order(order_id, shop.rng.randint(1, 20), ordered_at, status, loaded_at)


def batch_two(shop, loaded_at):
    """March: four new customers, two changed emails, last batch's open orders shipped, 20 new orders."""
    march = datetime(2025, 3, 1, 9, 0)
    for customer_id in range(21, 25):
        shop.add_customer(customer_id, march + timedelta(days=customer_id - 21), loaded_at)
    for customer_id in (3, 7):
        customer = shop.customers[customer_id]
        customer.update(email=customer["email"].replace("@example.com", "@mail.example.org"),
                        updated_at=march + timedelta(days=1), loaded_at=loaded_at)
    for order_id in range(53, 61):
        shop.set_status(order_id, "shipped", march + timedelta(hours=order_id), loaded_at)
    for order_id in range(61, 81):
        ordered_at = march + timedelta(hours=(order_id - 60) * 20)
        shop.add_order(order_id, shop.rng.randint(1, 24), ordered_at, shop.rng.choice(["placed", "completed"]), loaded_at)


def write(con, shop):
    con.execute("drop schema if exists raw cascade")
    con.execute("create schema raw")
    for table, columns in TABLES.items():
        con.execute(f"create table raw.{table} ({columns})")
        names = [c.split()[0] for c in columns.split(",")]
        rows = [[row[n] for n in names] for row in getattr(shop, "items" if table == "order_items" else table).values()]
        con.executemany(f"insert into raw.{table} values ({', '.join('?' * len(names))})", rows)
        print(f"raw.{table}: {len(rows)} rows")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, choices=(1, 2), default=1, help="how many batches to load (cumulative)")
    parser.add_argument("--age-hours", type=float, default=1.0, help="how long ago the newest batch was loaded")
    parser.add_argument("--db", default=os.environ.get("DBTATTIC_EXAMPLE_DB", "target/example.duckdb"))
    args = parser.parse_args()

    # Naive UTC, which is how dbt reads a timestamp without a zone when it measures freshness.
    newest = datetime.now(timezone.utc).replace(tzinfo=None, microsecond=0) - timedelta(hours=args.age_hours)
    shop = Shop()
    for batch, load in enumerate((batch_one, batch_two)[: args.batches], start=1):
        load(shop, newest - timedelta(hours=6 * (args.batches - batch)))

    Path(args.db).parent.mkdir(parents=True, exist_ok=True)
    with duckdb.connect(args.db) as con:
        write(con, shop)


if __name__ == "__main__":
    main()
