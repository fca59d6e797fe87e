from .models import Order
