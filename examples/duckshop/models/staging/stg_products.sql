select
    product_id,
    product_name,
    category,
    price_cents,
    {{ cents_to_amount('price_cents') }} as price
from {{ ref('products') }}
