-- An order that has shipped was paid in full: a row here was paid short, or twice.
select order_id, status, order_amount, paid_amount
from {{ ref('fct_orders') }}
where status in ('shipped', 'completed', 'returned')
    and paid_amount <> order_amount
