select
    payment_id,
    order_id,
    payment_method,
    amount_cents,
    {{ cents_to_amount('amount_cents') }} as amount,
    paid_at
from {{ source('shop', 'payments') }}
