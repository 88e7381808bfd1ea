-- Takings per day from shipped and completed orders, from the first trading day on.
select
    order_date,
    currency,
    count(*) as order_count,
    sum(paid_amount) as revenue
from {{ ref('fct_orders') }}
where status in ('shipped', 'completed')
    and order_date >= cast('{{ var("first_trading_date") }}' as date)
group by order_date, currency
