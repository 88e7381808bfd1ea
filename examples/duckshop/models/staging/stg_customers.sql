select
    customer_id,
    first_name || ' ' || last_name as customer_name,
    lower(email) as email,
    country_code,
    created_at,
    updated_at
from {{ source('shop', 'customers') }}
