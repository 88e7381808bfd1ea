"""A segment for every customer, from dim_customers (a dbt Python model, run by DuckDB)."""

# Tried in order; the first that holds names the segment.
SEGMENTS = [
    ("prospect", "order_count = 0"),
    ("loyal", "order_count >= {loyal_after_orders}"),
    ("high_value", "is_high_value"),
    ("new", "order_count = 1"),
]


def model(dbt, session):
    dbt.config(materialized="table")
    loyal_after_orders = int(dbt.config.get("loyal_after_orders") or 4)
    cases = " ".join(
        f"when {rule.format(loyal_after_orders=loyal_after_orders)} then '{name}'" for name, rule in SEGMENTS
    )
    customers = dbt.ref("dim_customers")
    return customers.project(
        f"customer_id, order_count, lifetime_value, case {cases} else 'occasional' end as segment"
    )
