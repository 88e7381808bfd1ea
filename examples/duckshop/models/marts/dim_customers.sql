with kept_orders as (
    -- A returned order is no sale: it counts neither as an order nor towards lifetime value.
    select
        customer_id,
        count(*) as order_count,
        min(order_date) as first_order_date,
        max(order_date) as most_recent_order_date,
        sum(paid_amount) as lifetime_value
    from {{ ref('fct_orders') }}
    where status <> 'returned'
    group by customer_id
)

select
    customers.customer_id,
    customers.customer_name,
    customers.email,
    customers.country_code,
    countries.country_name,
    countries.region,
    coalesce(kept_orders.order_count, 0) as order_count,
    kept_orders.first_order_date,
    kept_orders.most_recent_order_date,
    coalesce(kept_orders.lifetime_value, 0) as lifetime_value,
    coalesce(kept_orders.lifetime_value, 0) >= {{ var('high_value_threshold') }} as is_high_value
from {{ ref('stg_customers') }} as customers
left join {{ ref('countries') }} as countries on countries.country_code = customers.country_code
left join kept_orders on kept_orders.customer_id = customers.customer_id
