-- What has been paid against each order, whatever the method.
select
    order_id,
    count(*) as payment_count,
    sum(amount_cents) as paid_cents,
    max(paid_at) as last_paid_at
from {{ ref('stg_payments') }}
group by order_id
